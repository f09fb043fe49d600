#!/usr/bin/env python3
"""Deterministic generator for corpora3.

  python3 generate.py --set world-d        --seed corpora3-world-d-v1
  python3 generate.py --set world-holdout3 --seed corpora3-holdout3-v1

world-d uses template bank A (bank_a.py) only; world-holdout3 uses bank B (bank_b.py) only.
Value generators (token formats, passwords, key blocks) are shared in common.py.
Python 3.11 stdlib only.  Output: <set>.jsonl next to this script (or --out).
"""
import argparse
import json
import os
import random
import re

import common as C

DEFAULT_SEED = {"world-d": "corpora3-world-d-v1", "world-holdout3": "corpora3-holdout3-v1"}
PER_FAMILY = 6
N_NEG = 840


def camel(env):
    parts = env.lower().split("_")
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def topic_particle(word):
    """Korean topic particle: 은 after a final consonant, 는 otherwise (Latin endings read as letters)."""
    c = word[-1]
    if "\uac00" <= c <= "\ud7a3":
        return word + ("은" if (ord(c) - 0xAC00) % 28 else "는")
    return word + ("은" if c.upper() in "LMNR" or c.isdigit() and c in "013678" else "는")


def rec(family, form, text, secrets, public):
    return {"family": family, "lang": "ko" if C.has_hangul(text) else "en", "form": form,
            "text": text, "secrets": secrets, "public": public}


def cycle(rr, templates, k):
    order = list(range(len(templates)))
    rr.shuffle(order)
    out = []
    while len(out) < k:
        out.extend(order)
    return [templates[i] for i in out[:k]]


def gen_vendor(bank, fam, label, label_ko, envs, g, rr, seen):
    out = []
    pool = list(range(len(bank.VENDOR_T)))
    probe = g(random.Random(fam))
    if isinstance(probe, tuple) and probe[0].startswith("https://"):
        # webhook URLs are not sent as bearer tokens / CLI token flags
        pool = [i for i in pool if not re.search(r"(?i)bearer|--token|--api-key|api_key=|token\(", bank.VENDOR_T[i][2])]
    idxs = rr.sample(pool, PER_FAMILY)
    for i in idxs:
        form, _lang, tpl = bank.VENDOR_T[i]
        for _ in range(20):
            d = C.slots(rr)
            v = g(rr)
            disp, sec = (v if isinstance(v, tuple) else (v, v))
            env = rr.choice(envs)
            d.update(V=disp, env=env, envl=env.lower(), camel=camel(env), label=label, label_ko=label_ko, label_ko_eun=topic_particle(label_ko))
            text, s2, pub = C.fill(tpl, d)
            if text not in seen:
                break
        assert not s2, (fam, tpl)
        seen.add(text)
        out.append(rec(fam, form, text, [sec], pub))
    return out


def gen_pair(bank, fam, g, rr, seen):
    out = []
    for form, _lang, tpl in cycle(rr, bank.PAIR_T[fam], PER_FAMILY):
        for _ in range(20):
            d = C.slots(rr)
            d.update(g(rr))
            text, sec, pub = C.fill(tpl, d)
            if text not in seen:
                break
        seen.add(text)
        out.append(rec(fam, form, text, sec, pub))
    return out


def gen_key(bank, fam, g, rr, seen):
    out = []
    for form, _lang, how, tpl in cycle(rr, bank.KEY_T, PER_FAMILY):
        d = C.slots(rr)
        block, body = g(rr)
        d["BLOCK"] = C.transform(block, how)
        text, sec, pub = C.fill(tpl, d)
        seen.add(text)
        out.append(rec(fam, form, text, [C.transform(body, how)] + sec, pub))
    return out


def gen_struct(bank, fam, rr, seen):
    out = []
    for form, _lang, tpl in cycle(rr, bank.STRUCT_T[fam], PER_FAMILY):
        for _ in range(20):
            d = C.slots(rr)
            d.update(C.extra_slots(fam, rr))
            text, sec, pub = C.fill(tpl, d)
            if text not in seen:
                break
        if fam == "gcp-service-account":
            sec = [d["S_pk"]] + sec
        seen.add(text)
        out.append(rec(fam, form, text, sec, pub))
    return out


def gen_neg(bank, seed, seen):
    out = []
    rr = random.Random(f"{seed}|neg")
    i = 0
    order = []
    while len(out) < N_NEG:
        if not order:
            order = list(range(len(bank.NEG_T)))
            rr.shuffle(order)
        kind, form, _lang, tpl = bank.NEG_T[order.pop()]
        i += 1
        for _ in range(30):
            d = C.neg_slots(rr)
            text, sec, pub = C.fill(tpl, d)
            if text not in seen:
                break
        else:
            continue
        assert not sec, tpl
        seen.add(text)
        out.append(rec(kind, form, text, [], pub))
    return out


def build(setname, seed):
    if setname == "world-d":
        import bank_a as bank
    elif setname == "world-holdout3":
        import bank_b as bank
    else:
        raise SystemExit("unknown set " + setname)
    seen = set()
    pos = []
    for fam, label, label_ko, envs, g in C.VENDORS:
        pos += gen_vendor(bank, fam, label, label_ko, envs, g, random.Random(f"{seed}|{fam}"), seen)
    for fam, (_label, g) in C.PAIRS.items():
        pos += gen_pair(bank, fam, g, random.Random(f"{seed}|{fam}"), seen)
    for fam, g in C.KEY_FAMILIES.items():
        pos += gen_key(bank, fam, g, random.Random(f"{seed}|{fam}"), seen)
    for fam in C.STRUCT_FAMILIES:
        pos += gen_struct(bank, fam, random.Random(f"{seed}|{fam}"), seen)
    neg = gen_neg(bank, seed, seen)
    allr = pos + neg
    random.Random(f"{seed}|order").shuffle(allr)
    lines = []
    for i, r in enumerate(allr):
        obj = {"id": f"{setname}-{i:05d}", "set": setname}
        obj.update(r)
        lines.append(json.dumps(obj, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True, choices=["world-d", "world-holdout3"])
    ap.add_argument("--seed")
    ap.add_argument("--out")
    a = ap.parse_args()
    seed = a.seed or DEFAULT_SEED[a.set]
    data = build(a.set, seed)
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), a.set + ".jsonl")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(data)
    print(f"wrote {out} ({data.count(chr(10))} records, seed={seed!r})")


if __name__ == "__main__":
    main()
