#!/usr/bin/env python3
"""Validate the generated corpora (stdlib only).

    python3 validate.py world-a.jsonl world-b.jsonl world-holdout.jsonl

Checks: every line parses and has the schema; ids unique; every secret and
every public string occurs verbatim in its text; lang matches script;
negatives carry no secret-looking string outside their declared `public`
look-alikes (own prefix regexes + entropy); no generated secret appears in any
negative of any set; secrets are unique across sets; template skeletons of the
holdout do not occur in a/b.  Prints counts per set.
"""
import collections
import json
import math
import re
import sys

REQ = {"id": str, "set": str, "family": str, "lang": str, "form": str, "text": str, "secrets": list, "public": list}
HANGUL = re.compile(r"[\uac00-\ud7a3]")

# own, deliberately broad look-alike patterns (not any tool's rules)
SUSPECT = [re.compile(p) for p in [
    r"\bgh[pousr]_[A-Za-z0-9]{30,}", r"github_pat_[A-Za-z0-9_]{40,}", r"glpat-[A-Za-z0-9_\-]{20}",
    r"xox[abposer]-[0-9]{6,}-[A-Za-z0-9\-]{10,}", r"\b[sr]k_(live|test)_[A-Za-z0-9]{20,}", r"\bAKIA[A-Z2-7]{16}\b",
    r"\bASIA[A-Z2-7]{16}\b", r"AIza[A-Za-z0-9_\-]{35}", r"ya29\.[A-Za-z0-9_\-]{40,}", r"-----BEGIN [A-Z ]*PRIVATE KEY",
    r"eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}", r"\bsk-[A-Za-z0-9_\-]{20,}",
    r"\bhf_[A-Za-z]{30,}", r"\bnpm_[A-Za-z0-9]{36}", r"pypi-AgE", r"dckr_(pat|oat)_", r"\bSG\.[A-Za-z0-9_\-]{20,}\.",
    r"\bhvs\.[A-Za-z0-9_\-]{20,}", r"\.atlasv1\.", r"\bdapi[0-9a-f]{32}", r"\bgl(c|sa)_[A-Za-z0-9]{20,}",
    r"://[^/\s:@]+:[^/\s@]{3,}@", r"(?i)(?<![A-Za-z0-9])password\s*[:=]\s*[\"']?[A-Za-z0-9!#%?+/=@*_.^-]{6,}",
    r"(?i)\b(token|secret|api_?key)\s*[:=]\s*[\"']?[A-Za-z0-9_\-+/=]{16,}",
]]
PLACEHOLDERISH = re.compile(r"(X{6,}|x{6,}|\*{4,}|EXAMPLE|\$\{|\$[A-Za-z_]{3,}|\$env:|\{\{|%\(|<[^>]+>|\.\.\.|…|your|TODO|REDACTED|!vault|os\.getenv|os\.environ|process\.env|settings\.|config\[|§)")
ATOM = re.compile(r"[\s=:/@.,;\"'`()\[\]{}<>|#?&]+")


def entropy(s):
    c = collections.Counter(s)
    return -sum(v / len(s) * math.log2(v / len(s)) for v in c.values())


def skeleton(row):
    t = row["text"]
    for s in sorted(row["secrets"] + row["public"], key=len, reverse=True):
        t = t.replace(s, "§")
    t = re.sub(r"[A-Za-z0-9+/=_\-.]{16,}", "§", t)
    t = re.sub(r"\d+", "0", t)
    return t


def main(paths):
    all_rows = {}
    errors = []
    for p in paths:
        rows = []
        ids = set()
        for n, line in enumerate(open(p, encoding="utf-8"), 1):
            try:
                row = json.loads(line)
            except Exception as e:  # noqa: BLE001
                errors.append("%s:%d parse error %s" % (p, n, e))
                continue
            for k, typ in REQ.items():
                if not isinstance(row.get(k), typ):
                    errors.append("%s:%d bad field %s" % (p, n, k))
            if row["id"] in ids:
                errors.append("%s:%d duplicate id" % (p, n))
            ids.add(row["id"])
            for s in row["secrets"]:
                if not s or s not in row["text"]:
                    errors.append("%s:%d secret not in text: %r" % (p, n, s[:40]))
            for s in row["public"]:
                if s not in row["text"]:
                    errors.append("%s:%d public not in text: %r" % (p, n, s[:40]))
                for sec in row["secrets"]:
                    if sec in s or (s in sec and len(s) > 8):
                        errors.append("%s:%d public/secret overlap %r" % (p, n, s[:40]))
            has_ko = bool(HANGUL.search(row["text"]))
            if (row["lang"] == "ko") != has_ko:
                errors.append("%s:%d lang %s but hangul=%s" % (p, n, row["lang"], has_ko))
            rows.append(row)
        all_rows[p] = rows

    # negatives: look-alikes outside declared public strings
    suspects = []
    for p, rows in all_rows.items():
        for row in rows:
            if row["secrets"]:
                continue
            t = row["text"]
            for pub in sorted(row["public"], key=len, reverse=True):
                t = t.replace(pub, "§")
            for rx in SUSPECT:
                for m in rx.finditer(t):
                    if not PLACEHOLDERISH.search(m.group(0)):
                        suspects.append((p, row["id"], "regex", m.group(0)[:60]))
            for tok in ATOM.split(t):
                if (len(tok) >= 20 and entropy(tok) >= 4.2 and re.search(r"\d", tok) and re.search(r"[A-Za-z]", tok)
                        and not PLACEHOLDERISH.search(tok)):
                    suspects.append((p, row["id"], "entropy", tok[:60]))
    # self-check: the same scanner should fire on most positive lines
    hit = tot = 0
    for rows in all_rows.values():
        for row in rows:
            if row["secrets"]:
                tot += 1
                t = row["text"]
                if any(rx.search(t) for rx in SUSPECT) or any(
                        len(a) >= 20 and entropy(a) >= 4.2 and re.search(r"\d", a) and re.search(r"[A-Za-z]", a)
                        for a in ATOM.split(t)):
                    hit += 1
    print("== scanner self-check: fires on %d/%d positive lines (%.0f%%)" % (hit, tot, 100 * hit / max(1, tot)))
    # secrets never appear in negatives; secrets unique across sets
    sec_by_set = {p: set(s for r_ in rows for s in r_["secrets"]) for p, rows in all_rows.items()}
    all_secrets = set().union(*sec_by_set.values())
    leak = []
    for p, rows in all_rows.items():
        for row in rows:
            if not row["secrets"]:
                for s in all_secrets:
                    if len(s) >= 8 and s in row["text"]:
                        leak.append((p, row["id"], s[:40]))
    names = list(all_rows)
    cross = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            both = {s for s in sec_by_set[names[i]] & sec_by_set[names[j]] if len(s) >= 12}
            if both:
                cross.append((names[i], names[j], len(both), sorted(both)[:3]))

    # template overlap between sets
    skel = {p: set(skeleton(r_) for r_ in rows) for p, rows in all_rows.items()}
    print("== per-set counts")
    for p, rows in all_rows.items():
        pos = [r_ for r_ in rows if r_["secrets"]]
        neg = [r_ for r_ in rows if not r_["secrets"]]
        fams = collections.Counter(r_["family"] for r_ in pos)
        ko = sum(r_["lang"] == "ko" for r_ in rows)
        kop = sum(r_["lang"] == "ko" for r_ in pos)
        kon = sum(r_["lang"] == "ko" for r_ in neg)
        print("%s: lines=%d positives=%d negatives=%d (%.1f%%) families=%d (min %d per family) korean=%.1f%% (pos %.1f%%, neg %.1f%%) secrets=%d" % (
            p, len(rows), len(pos), len(neg), 100 * len(neg) / len(rows), len(fams), min(fams.values()),
            100 * ko / len(rows), 100 * kop / len(pos), 100 * kon / len(neg), sum(len(r_["secrets"]) for r_ in pos)))
        forms = collections.Counter(r_["form"] for r_ in rows)
        print("   forms:", dict(forms.most_common()))
    print("== template skeleton overlap (share of distinct skeletons also present in another set)")
    for p in names:
        others = set().union(*(skel[q] for q in names if q != p))
        ov = skel[p] & others
        print("  %s: %d distinct skeletons, %d shared (%.1f%%)" % (p, len(skel[p]), len(ov), 100 * len(ov) / max(1, len(skel[p]))))
        for x in sorted(ov)[:8]:
            print("     shared:", x[:100].replace("\n", "⏎"))
    print("== errors: %d" % len(errors))
    for e in errors[:30]:
        print("  ", e)
    print("== negatives with secret-looking strings outside `public`: %d" % len(suspects))
    for s in suspects[:40]:
        print("  ", s)
    print("== generated secrets found inside negatives: %d" % len(leak))
    for s in leak[:10]:
        print("  ", s)
    print("== secrets shared across sets: %s" % (cross or "none"))
    return 1 if errors or leak else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["world-a.jsonl", "world-b.jsonl", "world-holdout.jsonl"]))
