"""Vendor credential families: keys whose shape or nearby vendor name says whose they are.

The families follow gitleaks' default rule set (config/gitleaks.toml, MIT) and detect-secrets'
plugins: cloud providers, source hosting and package registries, AI providers, chat and
webhooks, mail, payments, monitoring and other SaaS. Patterns are written from the vendors'
published formats. Each one is anchored on a literal prefix, or on the vendor's name just
before the value when the value itself is plain hex (Datadog, Twilio auth tokens), so hashes,
UUIDs and digests in ordinary text never match. These rules run before the reference's
patterns: a ``token=xoxb-…`` should be reported as Slack, not as a signed URL.
"""

from __future__ import annotations

import re

from core.record.redaction_rules import Rule, vendor
from core.record.redaction_values import is_reference

_HEX32 = "[a-f0-9]{32}"
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# After a vendor's name: a few name characters ("_API_", " application "), the word key or
# token, then a separator; the value follows in the rule.
_NAMED = r"[\w .-]{0,24}?(?i:key|token|secret)[\"']?[\t ]*[:=]?[\t ]*[\"']?"


# What must follow a vendor's name in casefolded text before its context rule can match.
_NAMED_TAIL = r"[\w .-]{0,24}?(?:key|token|secret)"


def _named(vendor_words: str, value: str) -> str:
    """The context pattern of a vendor whose value has no prefix of its own."""
    return rf"(?i:{vendor_words}){_NAMED}(?P<secret>{value})(?![A-Za-z0-9_-])"


def _context(name: str, vendor_words: str, value: str, keywords: tuple[str, ...]) -> Rule:
    """A rule for a vendor named just before its value; prose naming the vendor without a
    key, token or secret word after it never opens the rule's gate."""
    gates = dict.fromkeys(keywords, _NAMED_TAIL)
    return vendor(name, _named(vendor_words, value), keywords, _not_public, gates=gates)


_PUBLIC_WORDS = re.compile(r"(?i:public|publishable|search|site|anon)")


def _not_public(match: re.Match[str]) -> bool:
    """ALGOLIA_SEARCH_KEY, a site key: a vendor's key named public is meant for browsers."""
    return _PUBLIC_WORDS.search(match.string, match.start(), match.start("secret")) is None


def _prefixed(name: str, pattern: str, *keywords: str, gates: dict[str, str] | None = None) -> Rule:
    return vendor(name, pattern, keywords, gates=gates)


VENDOR_RULES: tuple[Rule, ...] = (
    # Cloud providers and secrets managers
    vendor(
        "azure_storage_key",
        r"(?i:accountkey)[\t ]*=[\t ]*(?P<secret>[A-Za-z0-9+/]{86}==)",
        ("accountkey",),
    ),
    vendor(
        "azure_storage_key",
        r"(?i:azure|storage)[\w .-]{0,30}?(?i:key)[\"']?[\t ]*[:=][\t ]*[\"']?"
        r"(?P<secret>[A-Za-z0-9+/]{86}==)",
        ("azure", "storage"),
        gates=dict.fromkeys(("azure", "storage"), r"[\w .-]{0,30}?key"),
    ),
    _prefixed(
        "azure_ad_client_secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3,5}[0-9]Q~[A-Za-z0-9_~.-]{31,36}(?![A-Za-z0-9_~-])",
        "q~",
        gates={"q~": "[a-z0-9_~.-]{31}"},
    ),
    _prefixed("alibaba_access_key", r"\bLTAI[A-Za-z0-9]{20}\b", "ltai"),
    _prefixed(
        "digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "dop_v1_", "doo_v1_", "dor_v1_"
    ),
    _prefixed("heroku_api_key", r"\bHRKU-[A-Za-z0-9_-]{58,60}(?![A-Za-z0-9_-])", "hrku-"),
    _context("heroku_api_key", "heroku", _UUID, ("heroku",)),
    _prefixed("cloudflare_origin_ca_key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", "v1.0-"),
    _context(
        "cloudflare_api_token", r"cloudflare|\bcf_", "[A-Za-z0-9_-]{37,40}", ("cloudflare", "cf_")
    ),
    _prefixed("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}", "hvs.", "hvb.", "hvr."),
    _prefixed(
        "age_secret_key",
        r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        "age-secret-key-1",
    ),
    _prefixed(
        "doppler_token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b",
        "dp.pt.",
        "dp.st.",
        "dp.sa.",
        "dp.ct.",
        "dp.scim.",
        "dp.audit.",
    ),
    _prefixed("pulumi_token", r"\bpul-[a-f0-9]{40}\b", "pul-"),
    _prefixed(
        "databricks_token",
        r"\bdapi[a-h0-9]{32}(?:-[0-9])?\b",
        "dapi",
        gates={"dapi": "[a-h0-9]{32}"},
    ),
    _prefixed(
        "terraform_cloud_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}", ".atlasv1."
    ),
    _prefixed(
        "tailscale_key",
        r"\btskey-(?:(?:auth|api|client|scim|webhook)-)?[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}",
        "tskey-",
    ),
    _prefixed(
        "onepassword_token",
        r"\bops_eyJ[A-Za-z0-9+/=_-]{100,}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
        r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        "ops_eyj",
        "a3-",
        gates={"a3-": "[a-z0-9]{6}-"},
    ),
    _context("okta_token", "okta", "00[A-Za-z0-9_-]{40}", ("okta",)),
    _prefixed(
        "firebase_fcm_server_key",
        r"\b(?:AAAA[A-Za-z0-9_-]{7}:)?APA91b[A-Za-z0-9_-]{100,}",
        "apa91b",
    ),
    vendor(
        "cloudflare_global_api_key",
        r"(?i:cloudflare|x-auth-key|cf_api_key|cf_key|cf-key|global api key)"
        r"[^\n]{0,40}?(?<![0-9a-f])(?P<secret>[0-9a-f]{37})(?![0-9a-f])",
        ("cloudflare", "x-auth-key", "cf_api_key", "cf_key", "cf-key", "global api key"),
    ),
    vendor(
        "azure_devops_pat",
        r"(?i:azure|devops|\bado\b|\bpat\b|personal access token|dev\.azure\.com|visualstudio)"
        r"[^\n]{0,60}?(?<![A-Za-z0-9])(?P<secret>[a-z2-7]{52}|[A-Za-z0-9]{52}AZDO[A-Za-z0-9]{4}"
        r"|[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4})(?![A-Za-z0-9])",
        ("azure", "devops", "ado", "pat", "personal access token", "visualstudio"),
    ),
    _context("snyk_token", "snyk", _UUID, ("snyk",)),
    _prefixed(
        "kubernetes_bootstrap_token",
        r"(?<![A-Za-z0-9.])[a-z0-9]{6}\.[a-z0-9]{16}(?![A-Za-z0-9.])",
        ".",
        gates={".": "[a-z0-9]{16}"},
    ),
    _prefixed("fly_token", r"\bFlyV1 fm[12]_[A-Za-z0-9+/=_,-]{60,}", "flyv1 "),
    # Source hosting, CI and package registries
    _prefixed(
        "docker_hub_token",
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])",
        "dckr_pat_",
        "dckr_oat_",
    ),
    _prefixed("rubygems_token", r"\brubygems_[a-f0-9]{48}\b", "rubygems_"),
    _prefixed(
        "jfrog_token",
        r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmdGtuOjAxOj[A-Za-z0-9]{40,}",
        "akcp",
        "cmvmdgtuojaxoj",
    ),
    _prefixed("sonarqube_token", r"\bsq[pua]_[a-f0-9]{40}\b", "sqp_", "squ_", "sqa_"),
    _prefixed("nuget_api_key", r"\boy2[a-z0-9]{43}\b", "oy2", gates={"oy2": "[a-z0-9]{43}"}),
    _prefixed("clojars_token", r"\bCLOJARS_[a-z0-9]{60}\b", "clojars_"),
    _prefixed("bitbucket_app_password", r"\bATBB[A-Za-z0-9_=.-]{32}\b", "atbb"),
    _prefixed("atlassian_api_token", r"\bATATT3[A-Za-z0-9_=-]{150,}", "atatt3"),
    vendor(
        "npm_auth_token",
        r"(?i:_authToken)[\t ]*=[\t ]*[\"']?(?P<secret>[A-Za-z0-9._+/-]{20,}={0,2})",
        ("_authtoken",),
        lambda match: not is_reference(match.group("secret")),  # projects/x/secrets/…
    ),
    # AI and ML providers
    _prefixed("groq_api_key", r"\bgsk_[A-Za-z0-9]{52}\b", "gsk_"),
    _prefixed("replicate_token", r"\br8_[A-Za-z0-9]{37}\b", "r8_"),
    _prefixed("perplexity_api_key", r"\bpplx-[A-Za-z0-9]{48}\b", "pplx-"),
    _context("cohere_api_key", "cohere", "[A-Za-z0-9]{40}", ("cohere",)),
    # Chat, webhooks and social
    _prefixed(
        "discord_webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
        r"[0-9]{17,20}/[A-Za-z0-9_-]{30,100}",
        "discord",
        gates={"discord": r"(?:app)?\.com/api/webhooks/"},
    ),
    _prefixed(
        "discord_bot_token",
        r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])",
        ".",
        gates={".": r"[a-z0-9_-]{6}\.[a-z0-9_-]{27}"},
    ),
    _prefixed(
        "telegram_bot_token",
        r"(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])",
        ":",
        gates={":": "[a-z0-9_-]{35}"},
    ),
    _prefixed(
        "teams_webhook",
        r"https://[A-Za-z0-9-]+\.webhook\.office\.com/webhook(?:b2)?/[A-Za-z0-9@/_-]{60,}",
        "webhook.office.com",
    ),
    _prefixed("facebook_token", r"\bEAA[A-Za-z0-9]{100,}", "eaa", gates={"eaa": "[a-z0-9]{100}"}),
    # A run of A's (published samples hold 21 or 22), then URL-encoded base64
    _prefixed("twitter_bearer_token", r"\bA{20,24}[A-Za-z0-9%]{50,}", "a" * 20),
    # Mail
    _prefixed(
        "sendgrid_api_key",
        r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])",
        "sg.",
        gates={"sg.": r"[a-z0-9_-]{22}\."},
    ),
    _prefixed("mailgun_api_key", rf"\bkey-{_HEX32}\b", "key-", gates={"key-": "[0-9a-f]{32}"}),
    _prefixed(
        "mailgun_api_key",
        rf"\b{_HEX32}-[a-f0-9]{{8}}-[a-f0-9]{{8}}\b",
        "-",
        gates={"-": "[0-9a-f]{8}-[0-9a-f]{8}"},
    ),
    _prefixed("mailchimp_api_key", rf"\b{_HEX32}-us[0-9]{{1,2}}\b", "-us", gates={"-us": "[0-9]"}),
    _prefixed(
        "brevo_api_key",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        "xkeysib-",
        "xsmtpsib-",
    ),
    # Twilio: account and API key SIDs are public ids; their secrets need the vendor's name
    # (or stand beside the SID, which the structural rules take as a pair).
    _context("twilio_auth_token", "twilio", _HEX32, ("twilio",)),
    # Client("AC…", "<auth token>"): the secret written as the argument after its account SID
    # (ACxxxx:<token> is a login pair, which the structural rules take whole)
    vendor(
        "twilio_auth_token",
        r"\bAC[0-9a-f]{32}[\"'][\t ]*,[\t ]*[\"'](?P<secret>[0-9a-f]{32})[\"']",
        ("ac",),
        gates={"ac": "[0-9a-f]{32}[\"'][\t ]*,"},
    ),
    # Tencent Cloud SecretId: AKID and 32 letters and digits
    _prefixed("tencent_secret_id", r"\bAKID[A-Za-z0-9]{32}(?![A-Za-z0-9])", "akid"),
    # Payments and commerce
    _prefixed(
        "shopify_token",
        r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        "shpat_",
        "shpss_",
        "shpca_",
        "shppa_",
    ),
    _prefixed(
        "square_token",
        r"\b(?:sq0atp-[A-Za-z0-9_-]{22,}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})",
        "sq0atp-",
        "sq0csp-",
        "eaaa",
        gates={"eaaa": "[a-z0-9_-]{60}"},
    ),
    _prefixed(
        "braintree_token",
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
        "access_token$production$",
        "access_token$sandbox$",
    ),
    _context("braintree_key", "braintree", "[a-z0-9]{32}", ("braintree",)),
    _prefixed(
        "flutterwave_key", r"\bFLW(?:SECK|PUBK)(?:_TEST)?-[a-h0-9]{32}-X\b", "flwseck", "flwpubk"
    ),
    _prefixed("shippo_token", r"\bshippo_(?:live|test)_[a-f0-9]{40}\b", "shippo_"),
    _prefixed("easypost_key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", "ezak", "eztk"),
    _prefixed("duffel_token", r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}", "duffel_"),
    # Monitoring
    _context("datadog_app_key", r"datadog|\bdd[_-]", "[a-f0-9]{40}", ("datadog", "dd_", "dd-")),
    _context("datadog_api_key", r"datadog|\bdd[_-]", _HEX32, ("datadog", "dd_", "dd-")),
    _prefixed("sentry_token", r"\bsntry[su]_[A-Za-z0-9+/=_-]{40,}", "sntrys_", "sntryu_"),
    # A Sentry DSN is public by design (Sentry's documentation: safe to ship in clients).
    _prefixed(
        "new_relic_key",
        r"\bNR(?:AK|II|JS|AA|IQ)-[A-Za-z0-9_-]{19,40}(?![A-Za-z0-9_-])|\b[a-f0-9]{36}NRAL\b",
        "nrak-",
        "nrii-",
        "nrjs-",
        "nraa-",
        "nriq-",
        "nral",
    ),
    _prefixed(
        "grafana_token",
        r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}",
        "glsa_",
        "glc_",
    ),
    _prefixed("dynatrace_token", r"\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b", "dt0c01."),
    _prefixed(
        "launchdarkly_key",
        rf"\b(?:api|sdk|mob)-{_UUID}\b",
        "api-",
        "sdk-",
        "mob-",
        gates={"api-": "[0-9a-f]{8}-", "sdk-": "[0-9a-f]{8}-", "mob-": "[0-9a-f]{8}-"},
    ),
    # Other SaaS
    # Developer platforms, written from their published prefixes and lengths
    _prefixed("langsmith_api_key", r"\blsv2_(?:sk|pt)_[a-f0-9]{32}_[a-f0-9]{10}\b", "lsv2_"),
    _prefixed("xai_api_key", r"\bxai-[A-Za-z0-9]{70,90}\b", "xai-"),
    _prefixed("sourcegraph_token", r"\bsgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}\b", "sgp_"),
    _prefixed("fly_token", r"\bfo1_[A-Za-z0-9_-]{39,}", "fo1_"),
    _prefixed(
        "figma_token",
        r"\bfig[dup]_[A-Za-z0-9_-]{38,44}(?![A-Za-z0-9_-])",
        "figd_",
        "figu_",
        "figp_",
    ),
    _prefixed("infracost_api_key", r"\bico-[A-Za-z0-9]{32}\b", "ico-"),
    _prefixed("klaviyo_private_key", r"\bpk_[a-f0-9]{34}\b", "pk_", gates={"pk_": "[0-9a-f]{34}"}),
    _prefixed("circleci_token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b", "ccipat_"),
    _prefixed("netlify_token", r"\bnfp_[A-Za-z0-9]{36}\b", "nfp_"),
    _prefixed("adafruit_io_key", r"\baio_[A-Za-z0-9]{28}\b", "aio_"),
    _prefixed("buildkite_token", r"\bbkua_[a-f0-9]{40}\b", "bkua_"),
    _prefixed("render_api_key", r"\brnd_[A-Za-z0-9]{32}\b", "rnd_"),
    _prefixed("resend_api_key", r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b", "re_"),
    _prefixed("aws_bedrock_api_key", r"\bABSK[A-Za-z0-9+/]{100,}={0,2}", "absk"),
    _prefixed(
        "ngrok_authtoken",
        r"(?<![A-Za-z0-9_])[0-9][A-Za-z0-9]{26}_[A-Za-z0-9]{21}(?![A-Za-z0-9_])",
        "_",
        gates={"_": "[a-z0-9]{21}"},
    ),
    _prefixed("linear_api_key", r"\blin_api_[A-Za-z0-9]{40}\b", "lin_api_"),
    _prefixed(
        "notion_token",
        r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b",
        "ntn_",
        "secret_",
        gates={"secret_": "[a-z0-9]{43}"},
    ),
    _prefixed(
        "airtable_token",
        r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b",
        "pat",
        gates={"pat": r"[a-z0-9]{14}\.[0-9a-f]{64}"},
    ),
    _prefixed(
        "asana_token",
        rf"\b[0-9]/[0-9]{{10,20}}(?:/[0-9]{{10,20}})?:{_HEX32}\b",
        ":",
        gates={":": "[0-9a-f]{32}"},
    ),
    _prefixed("hubspot_token", rf"\bpat-(?:na|eu)[0-9]-{_UUID}\b", "pat-na", "pat-eu"),
    _prefixed(
        "dropbox_token",
        r"\bsl\.(?:u\.)?[A-Za-z0-9_-]{130,}",
        "sl.",
        gates={"sl.": "(?:u\\.)?[a-z0-9_-]{130}"},
    ),
    _prefixed("postman_api_key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", "pmak-"),
    _prefixed(
        "mapbox_secret_token",
        r"\b(?:sk|tk)\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}",
        "sk.eyj",
        "tk.eyj",
    ),
    _prefixed(
        "supabase_key",
        r"\bsb[pa]_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{31,}",
        "sbp_",
        "sba_",
        "sb_secret_",
    ),
    _prefixed("planetscale_token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}", "pscale_"),
    _prefixed("typeform_token", r"\btfp_[A-Za-z0-9_.=-]{59}", "tfp_"),
    _prefixed("readme_api_key", r"\brdme_[a-z0-9]{70}\b", "rdme_"),
    _prefixed("prefect_api_key", r"\bpnu_[A-Za-z0-9]{36}\b", "pnu_"),
    _prefixed("contentful_token", r"\bCFPAT-[A-Za-z0-9_-]{43}", "cfpat-"),
    _context("algolia_api_key", "algolia", _HEX32, ("algolia",)),
    # Families of gitleaks' default rule set (MIT) that a literal prefix anchors, written from
    # the vendors' published formats: Adobe, ClickHouse Cloud, Frame.io, GitLab's session
    # cookie, 42 Intra, MaxMind, OpenShift, Defined Networking, Scalingo, SettleMint, Yandex
    # Cloud, Amazon Bedrock's short-lived keys; detect-secrets' SoftLayer and a JWT in base64.
    _prefixed("adobe_client_secret", r"\bp8e-[A-Za-z0-9]{32}\b", "p8e-"),
    _prefixed(
        "clickhouse_api_secret",
        r"\b4b1d[A-Za-z0-9]{38}\b",
        "4b1d",
        gates={"4b1d": "[a-z0-9]{38}"},
    ),
    _prefixed("frameio_token", r"\bfio-u-[A-Za-z0-9_=-]{64}", "fio-u-"),
    vendor(
        "gitlab_session_cookie",
        r"_gitlab_session=(?P<secret>[0-9a-z]{32})\b",
        ("_gitlab_session=",),
    ),
    _prefixed("intra42_client_secret", r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b", "s-s4t2"),
    _prefixed("maxmind_license_key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", "_mmk"),
    _prefixed("openshift_token", r"\bsha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", "sha256~"),
    _prefixed(
        "defined_networking_token",
        r"\bdnkey-[A-Za-z0-9=_-]{20,}-[A-Za-z0-9=_-]{20,}",
        "dnkey-",
    ),
    _prefixed("scalingo_token", r"\btk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])", "tk-us-"),
    _prefixed(
        "settlemint_token",
        r"\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b",
        "sm_aat_",
        "sm_pat_",
        "sm_sat_",
    ),
    _prefixed(
        "yandex_token",
        r"\bt1\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*|\bAQVN[A-Za-z0-9_-]{35,38}(?![A-Za-z0-9_-])",
        "t1.",
        "aqvn",
        gates={"t1.": r"[a-z0-9_-]+=*\.[a-z0-9_-]{86}", "aqvn": "[a-z0-9_-]{35}"},
    ),
    _context("yandex_token", "yandex", r"YC[A-Za-z0-9_-]{38}", ("yandex",)),
    _prefixed(
        "aws_bedrock_api_key",
        r"\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%_-]*",
        "bedrock-api-key-",
    ),
    vendor(
        "softlayer_api_key",
        r"api\.softlayer\.com/soap/v3(?:\.1)?/(?P<secret>[a-z0-9]{64})\b",
        ("api.softlayer.com",),
    ),
    _prefixed("jwt", r"\bZXlK[A-Za-z0-9+/]{40,}={0,2}", "zxlk"),
    _context("lob_api_key", r"\blob", "(?:live|test)_[a-f0-9]{35}", ("lob",)),
)

VENDOR_RULES_AFTER_REFERENCE: tuple[Rule, ...] = (
    # Google OAuth tokens usually follow "Bearer", which the reference names; alone, these.
    _prefixed(
        "google_oauth_token",
        r"\bya29\.[0-9A-Za-z_-]{20,}|(?<![0-9A-Za-z/])1//0[0-9A-Za-z_-]{30,}",
        "ya29.",
        "1//0",
    ),
)
