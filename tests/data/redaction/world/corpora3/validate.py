#!/usr/bin/env python3
"""Validate a corpora3 JSONL file.  usage: python3 validate.py world-d.jsonl [world-holdout3.jsonl ...]"""
import collections
import json
import re
import sys

KEYS = ["id", "set", "family", "lang", "form", "text", "secrets", "public"]
FORMS = set("prose shell dotenv yaml json ini toml netrc npmrc kubeconfig xml hcl systemd makefile flag log code chat commit pem pair url sql http markdown".split())
MIN_FAMILIES = 120
PER_FAMILY = 6
MIN_NEG = 800


# lint: strong vendor patterns that must not survive once the listed secrets are removed
# (so a negative never hides a real-looking credential and a positive lists every one it contains)
STRONG = re.compile(r"gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{60,}|glpat-[A-Za-z0-9_-]{20}|xox[bpa]-[0-9]"
                    r"|sk_live_[A-Za-z0-9]{20,}|rk_live_|whsec_[A-Za-z0-9]{20}|AKIA(?!IOSFODNN7EXAMPLE)[A-Z2-7]{16}|ASIA[A-Z2-7]{16}"
                    r"|sk-ant-api|sk-proj-|npm_[A-Za-z0-9]{36}|dop_v1_|hf_[A-Za-z]{30}|AIza[A-Za-z0-9_-]{35}|SG\.[A-Za-z0-9_-]{22}\."
                    r"|pypi-AgE|hvs\.|dckr_pat_|shpat_|PRIVATE KEY-----\n[A-Za-z0-9+/]{20}")


def spans(text, sub):
    out, i = [], text.find(sub)
    while i >= 0:
        out.append((i, i + len(sub)))
        i = text.find(sub, i + 1)
    return out


def check(path):
    errs = []
    ids = set()
    texts = set()
    fam = collections.Counter()
    neg = 0
    negk = set()
    ko = 0
    n = 0
    setname = None
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    if "\r\n" in raw.replace("\\r\\n", ""):
        pass
    for ln, line in enumerate(raw.split("\n"), 1):
        if not line:
            continue
        n += 1
        try:
            o = json.loads(line, object_pairs_hook=list)
        except Exception as e:
            errs.append(f"{ln}: bad json {e}")
            continue
        keys = [k for k, _ in o]
        if keys != KEYS:
            errs.append(f"{ln}: key order {keys}")
            continue
        o = dict(o)
        if o["id"] in ids:
            errs.append(f"{ln}: duplicate id {o['id']}")
        ids.add(o["id"])
        setname = setname or o["set"]
        if o["set"] != setname or not o["id"].startswith(setname + "-"):
            errs.append(f"{ln}: set/id mismatch")
        if o["lang"] not in ("en", "ko"):
            errs.append(f"{ln}: lang")
        has_ko = any("\uac00" <= c <= "\ud7a3" for c in o["text"])
        if (o["lang"] == "ko") != has_ko:
            errs.append(f"{ln}: lang/hangul mismatch")
        if o["form"] not in FORMS:
            errs.append(f"{ln}: form {o['form']}")
        t = o["text"]
        if not isinstance(t, str) or not t.strip():
            errs.append(f"{ln}: empty text")
        if t in texts:
            errs.append(f"{ln}: duplicate text")
        texts.add(t)
        for k in ("secrets", "public"):
            if not isinstance(o[k], list) or not all(isinstance(x, str) and x for x in o[k]):
                errs.append(f"{ln}: {k} must be list of non-empty strings")
        for s in o["secrets"] + o["public"]:
            if s not in t:
                errs.append(f"{ln}: substring not in text: {s[:40]!r}")
        for p in o["public"]:
            if len(p) < 3:
                errs.append(f"{ln}: public too short {p!r}")
        sec_spans = [sp for s in o["secrets"] for sp in spans(t, s)]
        for p in o["public"]:
            for a, b in spans(t, p):
                for c, d in sec_spans:
                    if a < d and c < b:
                        errs.append(f"{ln}: public {p[:30]!r} overlaps secret")
        for s in o["secrets"]:
            for p in o["public"]:
                if s in p or p in s:
                    errs.append(f"{ln}: secret/public containment {s[:20]!r} {p[:20]!r}")
        rest = t
        for s in sorted(o["secrets"], key=len, reverse=True):
            rest = rest.replace(s, "")
        for m in STRONG.finditer(rest):
            if re.fullmatch(r"[a-z_]+X+", m.group()):   # documented placeholder such as ghp_XXXX...
                continue
            errs.append(f"{ln}: unlisted credential-looking string {m.group()[:30]!r}")
        if o["family"].startswith("neg-"):
            neg += 1
            negk.add(o["family"])
            if o["secrets"]:
                errs.append(f"{ln}: negative with secrets")
        else:
            fam[o["family"]] += 1
            if not o["secrets"]:
                errs.append(f"{ln}: positive without secrets")
        ko += o["lang"] == "ko"
    for f_, c in fam.items():
        if c != PER_FAMILY:
            errs.append(f"family {f_} has {c} sentences, expected {PER_FAMILY}")
    if len(fam) < MIN_FAMILIES:
        errs.append(f"only {len(fam)} positive families")
    if neg < MIN_NEG:
        errs.append(f"only {neg} negatives")
    pos = sum(fam.values())
    print(f"{path}: records={n} families={len(fam)} positives={pos} negatives={neg} "
          f"neg_kinds={len(negk)} korean={ko} ({100.0 * ko / max(n, 1):.1f}%) errors={len(errs)}")
    for e in errs[:50]:
        print("  ERROR", e)
    if "--families" in sys.argv:
        for f_, c in sorted(fam.items()):
            print(f"    {f_}: {c}")
    return errs, set(fam)


def main():
    args = sys.argv[1:]
    show = "--families" in args
    paths = [a for a in args if not a.startswith("--")] or ["world-d.jsonl", "world-holdout3.jsonl"]
    allfams = []
    bad = 0
    for p in paths:
        e, fams = check(p)
        bad += len(e)
        allfams.append(fams)
    if len(allfams) > 1:
        ref = allfams[0]
        for p, fs in zip(paths[1:], allfams[1:]):
            if fs != ref:
                print(f"  ERROR family sets differ between {paths[0]} and {p}: {sorted(ref ^ fs)[:10]}")
                bad += 1
            else:
                print(f"family sets identical across files ({len(ref)} families)")
    print("OK" if bad == 0 else f"FAILED ({bad} errors)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
