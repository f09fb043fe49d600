"""Sync: one journal on several machines through a git remote, end-to-end encrypted.

The package is pure Python. `engine` runs one sync (export, fetch, merge, push) in a git
working copy inside the journal; `merge` holds the rules that make two machines' records meet
without loss; `crypto` and `keystore` hold the age key and where it lives.
"""
