#!/usr/bin/env python3
"""Prove that world-d (bank A) and world-holdout3 (bank B) share no sentence template or negative builder.

Checks
 1. static: every template string in bank_a and bank_b (VENDOR_T, PAIR_T, KEY_T, STRUCT_T, NEG_T) is compared
    after normalisation (slot names -> «», whitespace collapsed, lower-cased): the two sets must be disjoint.
 2. static: no string literal of >= 16 characters appears in both bank modules (AST scan), and no
    function / top-level name other than the required table names is shared.
 3. dynamic: each generated record is reduced to a skeleton (listed secrets/publics -> §, digits -> 0,
    random-looking runs (>=12 token characters incl. a digit) -> ~); no skeleton occurs in both JSONL files.
 4. coverage: every positive family appears in both files.
 5. informational: longest common line (after masking) between the banks' templates.
Exit status 0 only if 1-4 pass.
"""
import ast
import json
import re
import sys

import bank_a
import bank_b

TABLES = ["VENDOR_T", "PAIR_T", "KEY_T", "STRUCT_T", "NEG_T"]


def templates(bank):
    out = []
    for t in bank.VENDOR_T:
        out.append(("vendor", t[-1]))
    for fam, lst in bank.PAIR_T.items():
        out += [("pair:" + fam, t[-1]) for t in lst]
    for t in bank.KEY_T:
        out.append(("key", t[-1]))
    for fam, lst in bank.STRUCT_T.items():
        out += [("struct:" + fam, t[-1]) for t in lst]
    for t in bank.NEG_T:
        out.append(("neg:" + t[0], t[-1]))
    return out


def norm(t):
    t = re.sub(r"«\w+»", "«»", t)
    return re.sub(r"\s+", " ", t).strip().lower()


def literals(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    lits, names = set(), set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 16
                and not re.fullmatch(r"[a-z0-9-]+", node.value)):  # family / kind identifiers are labels, not templates
            lits.add(node.value)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.Assign):
            for tg in node.targets:
                if isinstance(tg, ast.Name):
                    names.add(tg.id)
    return lits, names


def skeleton(o):
    t = o["text"]
    for s in sorted(o["secrets"] + o["public"], key=len, reverse=True):
        t = t.replace(s, "§")
    t = re.sub(r"[A-Za-z0-9_+/-]{12,}", lambda m: "~" if re.search(r"\d", m.group()) else m.group(), t)
    t = re.sub(r"\d", "0", t)
    return re.sub(r"\s+", " ", t)


def main():
    ok = True
    ta, tb = templates(bank_a), templates(bank_b)
    na = {norm(t): k for k, t in ta}
    nb = {norm(t): k for k, t in tb}
    shared = set(na) & set(nb)
    print(f"[1] templates: bank A {len(ta)}, bank B {len(tb)}, shared after normalisation: {len(shared)}")
    for s in sorted(shared)[:20]:
        print("    SHARED", na[s], nb[s], s[:80]); ok = False
    la, fa = literals("bank_a.py")
    lb, fb = literals("bank_b.py")
    sl = la & lb
    sn = (fa & fb) - set(TABLES)
    print(f"[2] string literals >=16 chars: A {len(la)}, B {len(lb)}, shared {len(sl)}; shared builder names: {sorted(sn)}")
    for s in sorted(sl)[:20]:
        print("    SHARED LITERAL", repr(s[:80])); ok = False
    if sn:
        ok = False
    files = sys.argv[1:] or ["world-d.jsonl", "world-holdout3.jsonl"]
    recs = [[json.loads(l) for l in open(f, encoding="utf-8")] for f in files]
    ska = {skeleton(o) for o in recs[0]}
    skb = {skeleton(o) for o in recs[1]}
    ss = ska & skb
    print(f"[3] record skeletons: {len(ska)} vs {len(skb)}, shared {len(ss)}")
    for s in sorted(ss)[:10]:
        print("    SHARED SKELETON", s[:100]); ok = False
    fams = [{o["family"] for o in rr if not o["family"].startswith("neg-")} for rr in recs]
    print(f"[4] positive families: {len(fams[0])} / {len(fams[1])}, symmetric difference {sorted(fams[0] ^ fams[1])}")
    if fams[0] != fams[1]:
        ok = False
    # informational: shared template lines (masked) of >= 20 chars
    def lines(ts):
        return {re.sub(r"«\w+»", "«»", ln).strip() for _, t in ts for ln in t.split("\n")}
    cl = {l for l in lines(ta) & lines(tb) if len(l) >= 20}
    print(f"[5] (info) shared template lines >= 20 chars: {len(cl)}", sorted(cl)[:10])
    print("BANKS DISJOINT: OK" if ok else "BANKS DISJOINT: FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
