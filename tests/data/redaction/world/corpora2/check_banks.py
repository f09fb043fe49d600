#!/usr/bin/env python3
"""Check that bank A (world-c) and bank B (world-holdout2) share no sentence template."""
import random
import generate as G
from families import FAMS
import negatives

A, B = set(), set()
for f in FAMS:
    A.update(t[2] for t in G.eligible(f, "A"))
    B.update(t[2] for t in G.eligible(f, "B"))
print("positive templates: bank A", len(A), "bank B", len(B), "shared", len(A & B))
na, nb = set(), set()
for k, banks in negatives.K.items():
    for fn in banks["A"]:
        na.add(fn(random.Random(1))[2])
    for fn in banks["B"]:
        nb.add(fn(random.Random(1))[2])
print("negative builders: bank A", len(na), "bank B", len(nb), "shared outputs (same seed)", len(na & nb))
