"""Shared helpers of the bulk tests."""
