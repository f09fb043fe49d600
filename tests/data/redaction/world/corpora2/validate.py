#!/usr/bin/env python3
"""Validate a corpus file: schema, substrings, overlaps, unique ids.

usage: python3 validate.py world-c.jsonl [more.jsonl ...]
"""
import json
import sys
from collections import Counter

KEYS = ["id", "set", "family", "lang", "form", "text", "secrets", "public"]
FORMS = set("prose shell dotenv yaml json ini toml netrc npmrc kubeconfig xml hcl systemd makefile flag log code chat commit pem pair url".split())
LANGS = {"en", "ko"}


def spans(text, sub):
    out, i = [], text.find(sub)
    while i != -1:
        out.append((i, i + len(sub)))
        i = text.find(sub, i + 1)
    return out


def check(path):
    errs = []
    ids = set()
    fam = Counter()
    n = pos = ko = 0
    sets = set()
    with open(path, encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            try:
                o = json.loads(line)
            except Exception as e:
                errs.append(f"{path}:{ln}: bad json {e}")
                continue
            n += 1
            if list(o.keys()) != KEYS:
                errs.append(f"{path}:{ln}: keys {list(o.keys())}")
                continue
            if o["id"] in ids:
                errs.append(f"{path}:{ln}: duplicate id {o['id']}")
            ids.add(o["id"])
            sets.add(o["set"])
            if not o["id"].startswith(o["set"] + "-"):
                errs.append(f"{path}:{ln}: id/set mismatch")
            if o["lang"] not in LANGS:
                errs.append(f"{path}:{ln}: lang {o['lang']}")
            if o["form"] not in FORMS:
                errs.append(f"{path}:{ln}: form {o['form']}")
            for k in ("family", "text"):
                if not isinstance(o[k], str) or not o[k]:
                    errs.append(f"{path}:{ln}: empty {k}")
            t = o["text"]
            if not isinstance(o["secrets"], list) or not isinstance(o["public"], list):
                errs.append(f"{path}:{ln}: secrets/public not lists")
                continue
            neg = o["family"].startswith("neg-")
            if neg and o["secrets"]:
                errs.append(f"{path}:{ln}: negative with secrets")
            if not neg and not o["secrets"]:
                errs.append(f"{path}:{ln}: positive without secrets")
            for s in o["secrets"]:
                if not isinstance(s, str) or not s or s not in t:
                    errs.append(f"{path}:{ln}: secret not a substring: {s!r:.60}")
            for p in o["public"]:
                if not isinstance(p, str) or len(p) < 3 or p not in t:
                    errs.append(f"{path}:{ln}: bad public entry: {p!r:.60}")
            for s in o["secrets"]:
                for p in o["public"]:
                    for a, b in spans(t, s):
                        for c, d in spans(t, p):
                            if a < d and c < b:
                                errs.append(f"{path}:{ln}: secret {s!r:.40} overlaps public {p!r:.40}")
            if o["secrets"]:
                pos += 1
            if o["lang"] == "ko":
                ko += 1
            fam[o["family"]] += 1
    posfam = [f for f in fam if not f.startswith("neg-")]
    print(f"{path}: {n} records ({pos} positive, {n - pos} negative), sets={sorted(sets)}, "
          f"positive families={len(posfam)}, Korean={ko} ({ko / max(n, 1):.1%}), ids unique={len(ids) == n}")
    few = [f for f in posfam if fam[f] < 6]
    if few:
        errs.append(f"{path}: families with <6 texts: {few}")
    return errs


def main():
    allerr = []
    for p in sys.argv[1:]:
        allerr += check(p)
    for e in allerr[:200]:
        print("ERROR", e)
    print("OK" if not allerr else f"FAILED: {len(allerr)} error(s)")
    sys.exit(1 if allerr else 0)


if __name__ == "__main__":
    main()
