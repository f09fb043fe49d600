#!/usr/bin/env python3
"""Deterministic generator for independent redaction corpora.

  python3 generate.py --set world-c --seed 4404 --out world-c.jsonl
  python3 generate.py --set world-holdout2 --seed 5505 --out world-holdout2.jsonl

The set name selects the template bank (world-c -> bank A, world-holdout2 -> bank B);
the seed selects the random values. Stdlib only.
"""
import argparse
import json
import random
import re
import sys

import values as V
from values import rs, HEX
import families
import custom  # noqa: F401  (registers structural families)
from families import FAMS, Tok, Pub
from templates import TOK, PAIR
import negatives

BANKS = {"world-c": "A", "world-holdout2": "B"}
TEXTS_PER_FAMILY = 6
PH_PER_FAMILY = 3
NEG_PER_KIND = {"A": 14, "B": 14}
MARK = re.compile(r"<<(\w+)>>")
SVCS = ["billing", "notifier", "search-indexer", "reports", "checkout", "ingest", "auth-proxy", "media"]


def camel(s):
    parts = re.split(r"[_\-\s.]+", s)
    return parts[0].lower() + "".join(p.capitalize() for p in parts[1:])


def pascal(s):
    return "".join(p.capitalize() for p in re.split(r"[^A-Za-z0-9]+", s) if p)


def fill(tmpl, fields):
    secrets, public = [], []
    used = []

    def rep(m):
        v = fields[m.group(1)]
        used.append(v)
        return str(v)
    text = MARK.sub(rep, tmpl)
    for v in used:
        if isinstance(v, Tok):
            for s in v.secrets:
                if s not in secrets:
                    secrets.append(s)
            for p in v.public:
                if p not in public:
                    public.append(p)
    return text, secrets, public


def common_fields(r, f):
    slug = re.sub(r"[^a-z0-9]+", "-", f["vendor"].lower()).strip("-")
    env = f["env"]
    d = dict(ENV=env, KEY=f["key"], VENDOR=f["vendor"], SLUG=slug.replace("-", "_"), HOST=f["host"], SVC=r.choice(SVCS),
             CONST=env, CAMEL=camel(env), CLASS=pascal(f["vendor"]), SHA=Pub(rs(r, HEX, 40)),
             JSREF=Pub("process.env." + env), MKREF=Pub("$(" + env + ")"), NUM=str(r.randrange(10**11, 10**12)),
             PROFILE=r.choice(["default", "staging", "ci", "sandbox"]))
    if f["kind"] == "pair":
        d.update(IDENV=f["idenv"], IDKEY=f["idkey"], CLI=f["cli"] or f"./bin/check-{slug}",
                 CAMELID=pascal(f["idkey"]), CAMELKEY=pascal(f["key"]))
    return d


def gen_value_fields(r, f):
    d = common_fields(r, f)
    if f["kind"] == "tok":
        v = f["gen"](r)
        d["V"] = v if isinstance(v, Tok) else Tok(v)
    else:
        i, s = f["gen"](r)
        d["ID"] = Tok(i) if f["id_secret"] else i
        d["V"] = Tok(s)
    return d


def eligible(f, bank):
    if f["kind"] == "custom":
        return [(fm, lg, t) for fm, lg, t in f[bank]]
    bankt = TOK[bank] if f["kind"] == "tok" else PAIR[bank]
    out = list(f["ex"].get(bank, []))
    for lang in ("en", "ko"):
        for fm, styles, t in bankt[lang]:
            if styles == "*" or (f["kind"] == "tok" and f["style"] in styles) or (styles == "B" and f.get("basic")):
                out.append((fm, lang, t))
    return out


def choose(r, f, bank, idx, n):
    pool = eligible(f, bank)
    ex = f.get("ex", {}).get(bank, []) if f["kind"] != "custom" else []
    en = [p for p in pool if p[1] == "en" and p not in ex]
    ko = [p for p in pool if p[1] == "ko" and p not in ex]
    r.shuffle(en)
    r.shuffle(ko)
    n_ko = 2 if idx % 2 == 0 else 1
    picks = list(ex)
    n_ko -= sum(1 for p in ex if p[1] == "ko")
    kos = [ko[i % len(ko)] for i in range(max(0, n_ko))] if ko else []
    ens = []
    i = 0
    if not en:
        en = ko
    while len(picks) + len(kos) + len(ens) < n:
        ens.append(en[i % len(en)])
        i += 1
    out = (picks + kos + ens)[:n]
    r.shuffle(out)
    return out


def placeholder_for(r, f, tokv, fieldname, form, sq=False):
    """A reference/placeholder to stand in for a secret value."""
    env = f.get("env") or {"P": "DB_PASSWORD", "T": "API_TOKEN", "K": "SECRET_KEY", "A": "NPM_AUTH", "ID": "AWS_ACCESS_KEY_ID",
                           "S": "AWS_SECRET_ACCESS_KEY", "PK": "GCP_PRIVATE_KEY", "PP": "KEY_PASSPHRASE", "D": "PASSWORD_B64",
                           "B": "BASIC_AUTH"}.get(fieldname, "SECRET_VALUE")
    if fieldname == "ID" and f.get("idenv"):
        env = f["idenv"]
    low = env.lower()
    text = tokv.text
    if "\n" in text or "\\n" in text or "-----BEGIN" in text:
        return Pub(r.choice([f"${{{env}}}", "<paste the private key here>", f"{{{{ .Values.{camel(env)} }}}}", "<contents of id_ed25519>"]))
    prefix = f.get("prefix")
    opts = [f"${{{env}}}", f"<your-{low.replace('_', '-')}>", "[REDACTED]", "<redacted>", "*" * 12, f"<{env}>", "REPLACE_ME"]
    if sq:
        # inside single quotes a shell would not expand a reference: use a literal placeholder
        opts = [o for o in opts if not o.startswith("$")]
    elif form in ("shell", "dotenv", "makefile", "systemd", "flag"):
        opts += [f"${env}", f"${env}"]
    if form == "makefile":
        opts += [f"$({env})"]
    if form == "code":
        opts += [f"os.environ[\"{env}\"]", f"process.env.{env}", f"settings.{env}"]
    if form in ("yaml", "kubeconfig"):
        opts += [f"${{{{ secrets.{env} }}}}", f"{{{{ .Values.{camel(env)} }}}}", f"{{{{ {low} }}}}"]
    if form in ("ini", "toml"):
        opts += [f"%({low})s", f"%({low})s"]
    if form == "hcl":
        opts += [f"var.{low}", f"${{var.{low}}}"]
    if prefix:
        opts += [prefix + "X" * max(8, min(36, len(text) - len(prefix)))] * 2
    else:
        opts += ["X" * max(8, min(40, len(text)))]
    return Pub(r.choice(opts))


def build_positive(r, f, bank, tmpl):
    if f["kind"] == "custom":
        fields = f["gen"](r)
    else:
        fields = gen_value_fields(r, f)
    return fill(tmpl, fields), fields


def build_placeholder(r, f, bank, tmpl, form):
    if f["kind"] == "custom":
        fields = f["gen"](r)
    else:
        fields = gen_value_fields(r, f)
    cache = {}
    for k, v in list(fields.items()):
        if isinstance(v, Tok) and v.secrets:
            key = v.text
            if key not in cache:
                cache[key] = placeholder_for(r, f, v, k, form, sq=("'<<%s>>" % k) in tmpl or ("'<<%s>>'" % k) in tmpl)
            fields[k] = cache[key]
    # neutral twins (e.g. KI/KJ versions of a key block) were replaced too since they are Toks
    return fill(tmpl, fields)


def generate(set_name, seed):
    bank = BANKS[set_name]
    r = random.Random(f"{set_name}:{seed}")
    recs = []
    seen_ph = set()
    for idx, f in enumerate(FAMS):
        fr = random.Random(f"{set_name}:{seed}:{f['name']}")
        for fm, lang, tmpl in choose(fr, f, bank, idx, TEXTS_PER_FAMILY):
            (text, secrets, public), _ = build_positive(fr, f, bank, tmpl)
            recs.append(dict(family=f["name"], lang=lang, form=fm, text=text, secrets=secrets, public=public))
        pool = eligible(f, bank)
        fr.shuffle(pool)
        made = 0
        for fm, lang, tmpl in pool + pool:
            if made >= PH_PER_FAMILY:
                break
            text, secrets, public = build_placeholder(fr, f, bank, tmpl, fm)
            assert not secrets
            if text in seen_ph:
                continue
            seen_ph.add(text)
            made += 1
            recs.append(dict(family="neg-placeholder/" + f["name"], lang=lang, form=fm, text=text, secrets=[], public=public))
    for kind, banks in negatives.K.items():
        kr = random.Random(f"{set_name}:{seed}:{kind}")
        builders = banks[bank]
        seen = set()
        for i in range(NEG_PER_KIND[bank] * 4):
            if len(seen) >= NEG_PER_KIND[bank]:
                break
            b = builders[i % len(builders)]
            fm, lang, text, public = b(kr)
            if text in seen:
                continue
            seen.add(text)
            public = [p for p in dict.fromkeys(public) if p in text]
            recs.append(dict(family=kind, lang=lang, form=fm, text=text, secrets=[], public=public))
    r.shuffle(recs)
    out = []
    for i, rec in enumerate(recs):
        o = {"id": f"{set_name}-{i:05d}", "set": set_name}
        o.update(family=rec["family"], lang=rec["lang"], form=rec["form"], text=rec["text"], secrets=rec["secrets"], public=rec["public"])
        out.append(o)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", required=True, choices=sorted(BANKS))
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    recs = generate(a.set, a.seed)
    with open(a.out, "w", encoding="utf-8", newline="\n") as fh:
        for o in recs:
            fh.write(json.dumps(o, ensure_ascii=False) + "\n")
    pos = sum(1 for o in recs if o["secrets"])
    print(f"{a.out}: {len(recs)} records, {pos} positive, {len(recs) - pos} negative", file=sys.stderr)


if __name__ == "__main__":
    main()
