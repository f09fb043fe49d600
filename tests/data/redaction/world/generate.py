#!/usr/bin/env python3
"""Decision Journal redaction evaluation corpora -- independent generator.

Usage:
    python3 generate.py --set world-a       --seed 1101 --out world-a.jsonl
    python3 generate.py --set world-b       --seed 2202 --out world-b.jsonl
    python3 generate.py --set world-holdout --seed 3303 --out world-holdout.jsonl
    python3 generate.py --all               # the three above with default seeds

The set name selects a disjoint template bank ("a", "b", "h"); the seed drives
all random values.  Stdlib only, deterministic per (set, seed).
"""
import argparse
import base64
import json
import random
import re
import sys
import urllib.parse
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_values import (ALNUM, B32L, B62, B64, B64URL, BECH32, DIG, HEXL, LET, LOW,  # noqa: E402
                        LOWAN, UPAN, UPP, b64, b64u_nopad, crc_b62_token, digits, human_pw,
                        jwt, pem_cert, pem_ec, pem_encrypted, pem_openssh, pem_pkcs8,
                        pem_pubkey, pem_rsa, pgp_private, plain_pw, r, rbytes, ssh_ed25519_pub,
                        ssh_rsa_pub, url_pw, uuid4, xml_pw)

SETS = {"world-a": ("a", 1101), "world-b": ("b", 2202), "world-holdout": ("h", 3303)}
KO_SHARE = 0.25
POS_PER_FAMILY = 6
NEG_RATIO = 0.45  # share of negatives among all lines

# =========================================================================
# Common fillers («name» fields that are not supplied by a family)
# =========================================================================
USERS = ["deploy", "app", "admin", "svc_backend", "jenkins", "ci-bot", "postgres", "minseo",
         "jiwoo.kim", "ops", "grafana", "airflow", "etl_user", "readonly", "hyunwoo", "sre-oncall"]
HOSTS = ["db-prod-1.internal", "10.0.3.17", "pg.staging.acme.io", "mysql-primary.svc.cluster.local",
         "bastion.kr-central.acme.dev", "rds-main.c9xq2k1lmn3o.ap-northeast-2.rds.amazonaws.com",
         "172.31.44.9", "redis-cache-01", "mq.internal.example.net", "db.dev.hanbit.kr",
         "192.168.10.24", "warehouse.corp.local"]
DBS = ["app", "orders", "billing", "analytics", "journal", "payments_v2", "users", "metabase"]
SVCS = ["billing-api", "ingest-worker", "journal-web", "notifier", "search-indexer", "auth-gateway",
        "payments", "reporting", "mobile-bff", "etl-nightly"]
REPOS = ["acme/platform", "acme/infra-live", "hanbit/journal", "acme/mobile-app", "data-team/etl",
         "kernforge/decision-journal", "acme/terraform-modules"]
TEAMS = ["infra", "platform", "data", "payments", "mobile", "sre"]
REGIONS = ["us-east-1", "ap-northeast-2", "eu-west-1", "us-west-2", "ap-northeast-1"]
CAMELS = ["AbstractSingletonProxyFactoryBean", "TokenRefreshCoordinatorImpl",
          "PasswordResetRequestValidator", "OAuthClientCredentialsProviderFactory",
          "SecretManagerAccessorConfiguration", "ApiKeyAuthenticationHandlerTests",
          "CredentialRotationSchedulerService", "JwtBearerTokenAuthenticationConverter",
          "DefaultAWSCredentialsProviderChain", "KeycloakAuthenticationProcessingFilter",
          "EncryptedSharedPreferencesMigrationHelper", "AccessTokenIntrospectionEndpointConfig"]
PATHS = ["/var/lib/postgresql/16/main/pg_hba.conf", "~/.aws/credentials", "~/.config/gh/hosts.yml",
         "/etc/ssl/private/", "src/auth/tokenStore.ts", "app/services/secret_rotation.py",
         "infra/modules/rds/variables.tf", "C:\\Users\\minseo\\AppData\\Roaming\\npm\\etc\\npmrc",
         "/run/secrets/db_password", "charts/api/templates/secret.yaml", "~/.docker/config.json",
         "/etc/redis/redis.conf", "~/.kube/config", "config/credentials.yml.enc"]


def fill_common(name, rng):
    f = {
        "user": lambda: rng.choice(USERS),
        "host": lambda: rng.choice(HOSTS),
        "db": lambda: rng.choice(DBS),
        "svc": lambda: rng.choice(SVCS),
        "repo": lambda: rng.choice(REPOS),
        "team": lambda: rng.choice(TEAMS),
        "region": lambda: rng.choice(REGIONS),
        "port": lambda: str(rng.choice([5432, 3306, 6379, 5672, 27017, 6432, 8080, 443])),
        "date": lambda: "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28)),
        "time": lambda: "%02d:%02d:%02d" % (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)),
        "ts": lambda: "2026-%02d-%02dT%02d:%02d:%02d.%03dZ" % (rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999)),
        "n": lambda: str(rng.randint(2, 9)),
        "ticket": lambda: rng.choice(["INFRA", "PLAT", "SEC", "OPS", "DJ"]) + "-" + str(rng.randint(100, 4999)),
        "ip": lambda: "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254)),
        "email": lambda: rng.choice(["minseo", "j.park", "devops", "alice", "billing-admin", "hyun"]) + "@" + rng.choice(["acme.io", "hanbit.kr", "example.com"]),
        "env_name": lambda: rng.choice(["staging", "prod", "dev", "qa", "sandbox"]),
        "pid": lambda: str(rng.randint(1000, 65000)),
        "mins": lambda: str(rng.choice([5, 10, 15, 30, 45])),
        # public-by-design / tempting values used in negatives
        "sha": lambda: r(rng, HEXL, 40),
        "short_sha": lambda: r(rng, HEXL, 7),
        "uuid": lambda: uuid4(rng),
        "ver": lambda: "%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 30), rng.randint(0, 40)),
        "camel": lambda: rng.choice(CAMELS),
        "path": lambda: rng.choice(PATHS),
        "sshpub": lambda: ssh_ed25519_pub(rng, rng.choice(USERS) + "@" + rng.choice(["laptop", "mbp-2024", "wsl", "build-01"])),
        "rsapub": lambda: ssh_rsa_pub(rng),
        "pk_live": lambda: "pk_live_" + r(rng, ALNUM, rng.choice([24, 99])),
        "pk_test": lambda: "pk_test_" + r(rng, ALNUM, rng.choice([24, 99])),
        "twsid": lambda: "AC" + r(rng, HEXL, 32),
        "smsid": lambda: "SM" + r(rng, HEXL, 32),
        "dsn": lambda: "https://%s@o%s.ingest.sentry.io/%s" % (r(rng, HEXL, 32), digits(rng, 6), digits(rng, 7)),
        "mapbox_pk": lambda: "pk." + b64u_nopad(json.dumps({"u": rng.choice(USERS), "a": r(rng, LOWAN, 25)}, separators=(",", ":")).encode()) + "." + r(rng, B64URL, 22),
        "integrity": lambda: "sha512-" + b64(rng, 64),
        "digest": lambda: "sha256:" + r(rng, HEXL, 64),
        "sha256": lambda: r(rng, HEXL, 64),
        "b64data": lambda: base64.b64encode(json.dumps(rng.choice([{"page": rng.randint(2, 90), "per_page": 50}, {"cursor": rng.randint(10**5, 10**7), "sort": "created_at"}, {"tab": "settings", "theme": "dark"}])).encode()).decode(),
        "b64text": lambda: base64.b64encode(rng.choice(["hello from the build bot", "Decision Journal export v2", "user_id,created_at,plan", "안녕하세요 배포 완료"]).encode()).decode(),
        "gclient": lambda: digits(rng, 12) + "-" + r(rng, LOWAN, 32) + ".apps.googleusercontent.com",
        "acct": lambda: digits(rng, 12),
        "zone": lambda: r(rng, HEXL, 32),
        "cus": lambda: "cus_" + r(rng, ALNUM, 14),
        "pi": lambda: "pi_" + r(rng, ALNUM, 24),
        "slack_ch": lambda: "C0" + r(rng, UPAN, 9),
        "fp": lambda: "SHA256:" + b64(rng, 32).rstrip("="),
        "gosum": lambda: "h1:" + b64(rng, 32),
        "trace": lambda: r(rng, HEXL, 32),
        "reqid": lambda: "req_" + r(rng, ALNUM, 20),
        "container": lambda: r(rng, HEXL, 64),
        "etag": lambda: '"' + r(rng, HEXL, 32) + '"',
        "gpgid": lambda: r(rng, HEXU, 16),
        "cert": lambda: pem_cert(rng),
        "pubpem": lambda: pem_pubkey(rng),
        "node_id": lambda: "MDEwOlJlcG9zaXRvcnk" + r(rng, DIG, 9) + "=",
        "tenant": lambda: uuid4(rng),
        "ami": lambda: "ami-0" + r(rng, HEXL, 16),
        "sg": lambda: "sg-0" + r(rng, HEXL, 16),
        "kid": lambda: r(rng, HEXL, 40),
        "color": lambda: "#" + r(rng, HEXL, 6),
    }
    return f[name]()


PUBLIC_FILLERS = {"sha", "short_sha", "uuid", "sshpub", "rsapub", "pk_live", "pk_test", "twsid",
                  "smsid", "dsn", "mapbox_pk", "integrity", "digest", "sha256", "b64data", "b64text",
                  "gclient", "acct", "zone", "cus", "pi", "slack_ch", "fp", "gosum", "trace", "reqid",
                  "container", "gpgid", "cert", "pubpem", "node_id", "tenant", "ami", "sg", "kid", "camel"}
FIELD = re.compile(r"«([A-Za-z_][A-Za-z0-9_]*)»")

HEXU = "0123456789ABCDEF"

# =========================================================================
# Vendor token families
# =========================================================================
FAMILIES = []


class Fam:
    def __init__(self, name, vendor, env, what, gen, kind="token", native=None, ph_ok=True,
                 id_env=None, id_what=None, id_sensitive=False, tool=None, dom=None, key=None,
                 prefix=None, category="vendor", what_ko=None):
        self.name, self.vendor, self.env, self.what, self.gen = name, vendor, env, what, gen
        self.kind, self.native, self.ph_ok = kind, native or {}, ph_ok
        self.id_env, self.id_what, self.id_sensitive = id_env, id_what, id_sensitive
        self.slug = re.sub(r"[^a-z0-9]+", "-", vendor.lower()).strip("-")
        self.tool = tool or self.slug
        self.dom = dom or (self.slug.replace("-", "") + ".com")
        self.key = key or what.replace(" ", "_")
        self.prefix = prefix
        self.category = category
        self.what_ko = what_ko or {"token": "토큰", "api key": "API 키", "access token": "액세스 토큰",
                                   "secret key": "시크릿 키", "auth token": "인증 토큰",
                                   "personal access token": "개인 액세스 토큰",
                                   "webhook url": "웹훅 URL", "password": "비밀번호",
                                   "client secret": "클라이언트 시크릿"}.get(what, "키")
        FAMILIES.append(self)


def V(name, vendor, env, what, gen, **kw):
    return Fam(name, vendor, env, what, gen, **kw)


def keyc(k):
    parts = k.split("_")
    return parts[0] + "".join(p.title() for p in parts[1:])


# --- GitHub
V("github-pat-classic", "GitHub", ["GITHUB_TOKEN", "GH_TOKEN"], "personal access token", lambda g: crc_b62_token(g, "ghp_"), tool="gh", prefix="ghp_")
V("github-oauth-token", "GitHub", ["GITHUB_OAUTH_TOKEN"], "access token", lambda g: crc_b62_token(g, "gho_"), tool="gh", prefix="gho_")
V("github-app-installation-token", "GitHub", ["GITHUB_APP_TOKEN", "GH_INSTALLATION_TOKEN"], "token", lambda g: crc_b62_token(g, "ghs_"), tool="gh", prefix="ghs_")
V("github-user-to-server-token", "GitHub", ["GH_USER_TOKEN"], "token", lambda g: crc_b62_token(g, "ghu_"), tool="gh", prefix="ghu_")
V("github-refresh-token", "GitHub", ["GITHUB_REFRESH_TOKEN"], "token", lambda g: crc_b62_token(g, "ghr_", 70), tool="gh", prefix="ghr_")
V("github-fine-grained-pat", "GitHub", ["GITHUB_PAT", "GH_TOKEN"], "personal access token", lambda g: "github_pat_" + r(g, ALNUM, 22) + "_" + r(g, ALNUM, 59), tool="gh", prefix="github_pat_")
# --- GitLab
V("gitlab-pat", "GitLab", ["GITLAB_TOKEN", "GL_TOKEN"], "personal access token", lambda g: "glpat-" + r(g, B64URL, 20), tool="glab", prefix="glpat-")
V("gitlab-deploy-token", "GitLab", ["GITLAB_DEPLOY_TOKEN"], "token", lambda g: "gldt-" + r(g, B64URL, 20), tool="glab", prefix="gldt-")
V("gitlab-runner-token", "GitLab", ["RUNNER_TOKEN", "CI_RUNNER_TOKEN"], "token", lambda g: "glrt-" + r(g, B64URL, 20), tool="gitlab-runner", prefix="glrt-")
V("gitlab-pipeline-trigger-token", "GitLab", ["TRIGGER_TOKEN"], "token", lambda g: "glptt-" + r(g, HEXL, 40), tool="glab", prefix="glptt-")
V("gitlab-runner-registration-token", "GitLab", ["REGISTRATION_TOKEN"], "token", lambda g: "GR1348941" + r(g, B64URL, 20), tool="gitlab-runner", prefix="GR1348941")
# --- Slack
V("slack-bot-token", "Slack", ["SLACK_BOT_TOKEN"], "token", lambda g: "xoxb-%s-%s-%s" % (digits(g, 11), digits(g, 13), r(g, ALNUM, 24)), prefix="xoxb-")
V("slack-user-token", "Slack", ["SLACK_USER_TOKEN"], "token", lambda g: "xoxp-%s-%s-%s-%s" % (digits(g, 11), digits(g, 11), digits(g, 13), r(g, HEXL, 32)), prefix="xoxp-")
V("slack-app-token", "Slack", ["SLACK_APP_TOKEN"], "token", lambda g: "xapp-1-A%s-%s-%s" % (r(g, UPAN, 10), digits(g, 13), r(g, HEXL, 64)), prefix="xapp-")
V("slack-webhook-url", "Slack", ["SLACK_WEBHOOK_URL"], "webhook url", lambda g: "https://hooks.slack.com/services/T%s/B%s/%s" % (r(g, UPAN, 10), r(g, UPAN, 10), r(g, ALNUM, 24)), key="webhook_url", prefix="https://hooks.slack.com/services/")
V("msteams-webhook-url", "Microsoft Teams", ["TEAMS_WEBHOOK_URL"], "webhook url", lambda g: "https://%s.webhook.office.com/webhookb2/%s@%s/IncomingWebhook/%s/%s" % (g.choice(["acme", "hanbitcorp", "contoso"]), uuid4(g), uuid4(g), r(g, HEXL, 32), uuid4(g)), key="webhook_url", prefix="https://acme.webhook.office.com/webhookb2/")
V("discord-webhook-url", "Discord", ["DISCORD_WEBHOOK_URL"], "webhook url", lambda g: "https://discord.com/api/webhooks/%s/%s" % (digits(g, 19), r(g, B64URL, 68)), key="webhook_url", prefix="https://discord.com/api/webhooks/")
V("discord-bot-token", "Discord", ["DISCORD_TOKEN", "DISCORD_BOT_TOKEN"], "token", lambda g: b64u_nopad(digits(g, 18).encode()) + "." + r(g, B64URL, 6) + "." + r(g, B64URL, 38))
V("telegram-bot-token", "Telegram", ["TELEGRAM_BOT_TOKEN", "TG_TOKEN"], "token", lambda g: "%s:AA%s" % (digits(g, g.choice([9, 10])), r(g, B64URL, 33)), dom="api.telegram.org")
# --- Stripe & payments
V("stripe-secret-key", "Stripe", ["STRIPE_SECRET_KEY", "STRIPE_API_KEY"], "secret key", lambda g: "sk_live_" + r(g, ALNUM, g.choice([24, 99])), prefix="sk_live_")
V("stripe-restricted-key", "Stripe", ["STRIPE_RESTRICTED_KEY"], "api key", lambda g: "rk_live_" + r(g, ALNUM, g.choice([24, 99])), prefix="rk_live_")
V("stripe-webhook-secret", "Stripe", ["STRIPE_WEBHOOK_SECRET"], "secret key", lambda g: "whsec_" + r(g, ALNUM, 32), key="webhook_secret", prefix="whsec_")
V("stripe-test-secret-key", "Stripe", ["STRIPE_TEST_SECRET_KEY"], "secret key", lambda g: "sk_test_" + r(g, ALNUM, g.choice([24, 99])), prefix="sk_test_")
V("square-access-token", "Square", ["SQUARE_ACCESS_TOKEN"], "access token", lambda g: "EAAA" + r(g, B64URL, 60), dom="connect.squareup.com", prefix="EAAA")
V("square-oauth-secret", "Square", ["SQUARE_APPLICATION_SECRET"], "client secret", lambda g: "sq0csp-" + r(g, B64URL, 43), prefix="sq0csp-")
V("braintree-access-token", "Braintree", ["BRAINTREE_ACCESS_TOKEN"], "access token", lambda g: "access_token$production$%s$%s" % (r(g, LOWAN, 16), r(g, HEXL, 32)), prefix="access_token$production$")
V("flutterwave-secret-key", "Flutterwave", ["FLW_SECRET_KEY"], "secret key", lambda g: "FLWSECK-" + r(g, HEXL, 32) + "-X", prefix="FLWSECK-")
V("paystack-secret-key", "Paystack", ["PAYSTACK_SECRET_KEY"], "secret key", lambda g: "sk_live_" + r(g, HEXL, 40), prefix="sk_live_")
V("shippo-api-token", "Shippo", ["SHIPPO_API_TOKEN"], "token", lambda g: "shippo_live_" + r(g, HEXL, 40), prefix="shippo_live_")
V("easypost-api-key", "EasyPost", ["EASYPOST_API_KEY"], "api key", lambda g: "EZAK" + r(g, ALNUM, 54), prefix="EZAK")
V("shopify-admin-token", "Shopify", ["SHOPIFY_ACCESS_TOKEN"], "access token", lambda g: "shpat_" + r(g, HEXL, 32), prefix="shpat_", dom="myshopify.com")
V("shopify-shared-secret", "Shopify", ["SHOPIFY_API_SECRET"], "client secret", lambda g: "shpss_" + r(g, HEXL, 32), prefix="shpss_", dom="myshopify.com")
V("shopify-custom-app-token", "Shopify", ["SHOPIFY_CUSTOM_APP_TOKEN"], "access token", lambda g: "shpca_" + r(g, HEXL, 32), prefix="shpca_", dom="myshopify.com")
V("klaviyo-private-key", "Klaviyo", ["KLAVIYO_PRIVATE_API_KEY"], "api key", lambda g: "pk_" + r(g, HEXL, 34), prefix="pk_")
# --- Cloud
V("gcp-api-key", "Google Cloud", ["GOOGLE_API_KEY", "GEMINI_API_KEY", "MAPS_API_KEY"], "api key", lambda g: "AIza" + r(g, B64URL, 35), tool="gcloud", dom="googleapis.com", prefix="AIza")
V("google-oauth-access-token", "Google", ["GOOGLE_ACCESS_TOKEN"], "access token", lambda g: "ya29.a0" + r(g, B64URL, g.choice([150, 180, 210])), tool="gcloud", dom="googleapis.com", prefix="ya29.")
V("google-oauth-refresh-token", "Google", ["GOOGLE_REFRESH_TOKEN"], "token", lambda g: "1//0" + r(g, B64URL, g.choice([99, 103])), tool="gcloud", dom="oauth2.googleapis.com", key="refresh_token", prefix="1//0")
V("google-oauth-client-secret", "Google", ["GOOGLE_CLIENT_SECRET"], "client secret", lambda g: "GOCSPX-" + r(g, B64URL, 28), tool="gcloud", dom="accounts.google.com", prefix="GOCSPX-")
V("firebase-fcm-server-key", "Firebase", ["FCM_SERVER_KEY"], "api key", lambda g: "AAAA" + r(g, B64URL, 7) + ":APA91b" + r(g, B64URL, 134), key="server_key", dom="fcm.googleapis.com", prefix="AAAA")
V("azure-devops-pat", "Azure DevOps", ["AZURE_DEVOPS_PAT", "AZDO_PAT", "SYSTEM_ACCESSTOKEN"], "personal access token", lambda g: r(g, B32L, 52) if g.random() < 0.5 else r(g, ALNUM, 76) + "AZDO" + r(g, ALNUM, 4), tool="az", dom="dev.azure.com")
V("azure-ad-client-secret", "Azure AD", ["AZURE_CLIENT_SECRET", "ARM_CLIENT_SECRET"], "client secret", lambda g: r(g, ALNUM + "_~.", 3) + r(g, DIG, 1) + "8Q~" + r(g, ALNUM + "_~.-", 34), tool="az", dom="login.microsoftonline.com")
V("digitalocean-pat", "DigitalOcean", ["DIGITALOCEAN_TOKEN", "DO_TOKEN"], "personal access token", lambda g: "dop_v1_" + r(g, HEXL, 64), tool="doctl", prefix="dop_v1_")
V("digitalocean-oauth-token", "DigitalOcean", ["DIGITALOCEAN_ACCESS_TOKEN"], "access token", lambda g: "doo_v1_" + r(g, HEXL, 64), tool="doctl", prefix="doo_v1_")
V("cloudflare-api-token", "Cloudflare", ["CLOUDFLARE_API_TOKEN", "CF_API_TOKEN"], "token", lambda g: r(g, B64URL, 40), tool="wrangler", dom="api.cloudflare.com")
V("cloudflare-origin-ca-key", "Cloudflare", ["CF_ORIGIN_CA_KEY"], "api key", lambda g: "v1.0-" + r(g, HEXL, 24) + "-" + r(g, HEXL, 146), tool="wrangler", dom="api.cloudflare.com", prefix="v1.0-")
V("heroku-api-key", "Heroku", ["HEROKU_API_KEY"], "api key", lambda g: g.choice(["HRKU-AA" + r(g, B64URL, 58), "HRKU-" + uuid4(g), uuid4(g)]), prefix="HRKU-")
V("vercel-token", "Vercel", ["VERCEL_TOKEN"], "token", lambda g: r(g, ALNUM, 24))
V("netlify-token", "Netlify", ["NETLIFY_AUTH_TOKEN"], "personal access token", lambda g: "nfp_" + r(g, ALNUM, 36), prefix="nfp_")
V("flyio-token", "Fly.io", ["FLY_API_TOKEN"], "token", lambda g: "fo1_" + r(g, B64URL, 43), tool="flyctl", dom="fly.io", prefix="fo1_")
V("render-api-key", "Render", ["RENDER_API_KEY"], "api key", lambda g: "rnd_" + r(g, ALNUM, 32), prefix="rnd_")
V("supabase-access-token", "Supabase", ["SUPABASE_ACCESS_TOKEN"], "access token", lambda g: "sbp_" + r(g, HEXL, 40), prefix="sbp_")
V("supabase-service-role-key", "Supabase", ["SUPABASE_SERVICE_ROLE_KEY"], "secret key", lambda g: jwt(g, "HS256", {"iss": "supabase", "ref": r(g, LOW, 20), "role": "service_role"}), key="service_role_key", prefix="eyJ")
V("planetscale-token", "PlanetScale", ["PLANETSCALE_SERVICE_TOKEN"], "token", lambda g: "pscale_tkn_" + r(g, B64URL, 43), tool="pscale", prefix="pscale_tkn_")
V("planetscale-password", "PlanetScale", ["DATABASE_PASSWORD"], "password", lambda g: "pscale_pw_" + r(g, B64URL, 43), tool="pscale", prefix="pscale_pw_")
V("databricks-token", "Databricks", ["DATABRICKS_TOKEN"], "personal access token", lambda g: "dapi" + r(g, HEXL, 32) + ("-2" if g.random() < 0.3 else ""), prefix="dapi")
V("tailscale-auth-key", "Tailscale", ["TS_AUTHKEY"], "api key", lambda g: "tskey-auth-" + r(g, ALNUM, 11) + "CNTRL-" + r(g, ALNUM, 33), prefix="tskey-auth-")
V("ngrok-authtoken", "ngrok", ["NGROK_AUTHTOKEN"], "token", lambda g: "2" + r(g, ALNUM, 26) + "_" + r(g, ALNUM, 21))
V("aws-bedrock-api-key", "Amazon Bedrock", ["AWS_BEARER_TOKEN_BEDROCK"], "api key", lambda g: "ABSKQmVkcm9ja0FQSUtleS" + r(g, B64, 110), tool="aws", dom="amazonaws.com", prefix="ABSK")
# --- Secrets managers / infra
V("vault-service-token", "HashiCorp Vault", ["VAULT_TOKEN"], "token", lambda g: ("hvs." + r(g, ALNUM, 24)) if g.random() < 0.5 else ("hvs.CAESI" + r(g, B64URL, 86)), tool="vault", dom="vault.acme.internal", prefix="hvs.")
V("vault-batch-token", "HashiCorp Vault", ["VAULT_BATCH_TOKEN"], "token", lambda g: "hvb.AAAAAQ" + r(g, B64URL, 130), tool="vault", dom="vault.acme.internal", prefix="hvb.")
V("terraform-cloud-token", "Terraform Cloud", ["TFE_TOKEN", "TF_TOKEN_app_terraform_io"], "token", lambda g: r(g, ALNUM, 14) + ".atlasv1." + r(g, B64URL, 67), tool="terraform", dom="app.terraform.io")
V("doppler-token", "Doppler", ["DOPPLER_TOKEN"], "token", lambda g: g.choice(["dp.pt.", "dp.st.prd.", "dp.sa."]) + r(g, ALNUM, 43), prefix="dp.")
V("pulumi-token", "Pulumi", ["PULUMI_ACCESS_TOKEN"], "access token", lambda g: "pul-" + r(g, HEXL, 40), prefix="pul-")
V("onepassword-service-account-token", "1Password", ["OP_SERVICE_ACCOUNT_TOKEN"], "token", lambda g: "ops_eyJzaWduSW5BZGRyZXNzIjoi" + r(g, B64URL, 220), tool="op", dom="1password.com", prefix="ops_")
V("age-secret-key", "age", ["SOPS_AGE_KEY"], "secret key", lambda g: "AGE-SECRET-KEY-1" + r(g, BECH32, 58), tool="sops", prefix="AGE-SECRET-KEY-1")
V("jfrog-api-key", "JFrog Artifactory", ["ARTIFACTORY_API_KEY"], "api key", lambda g: "AKCp" + r(g, ALNUM, 69), tool="jf", dom="acme.jfrog.io", prefix="AKCp")
V("jfrog-reference-token", "JFrog Artifactory", ["JFROG_ACCESS_TOKEN"], "access token", lambda g: base64.b64encode(("reftkn:01:%d:%s" % (g.randint(1800000000, 1900000000), r(g, ALNUM, 30))).encode()).decode().rstrip("="), tool="jf", dom="acme.jfrog.io", prefix="cmVmdGtu")
V("sonarqube-token", "SonarQube", ["SONAR_TOKEN"], "token", lambda g: g.choice(["squ_", "sqp_", "sqa_"]) + r(g, HEXL, 40), tool="sonar-scanner", dom="sonarcloud.io", prefix="squ_")
V("npm-access-token", "npm", ["NPM_TOKEN", "NODE_AUTH_TOKEN"], "access token", lambda g: crc_b62_token(g, "npm_"), tool="npm", dom="registry.npmjs.org", prefix="npm_")
V("pypi-upload-token", "PyPI", ["PYPI_TOKEN", "TWINE_PASSWORD", "UV_PUBLISH_TOKEN"], "token", lambda g: "pypi-AgEIcHlwaS5vcmcCJ" + r(g, B64URL, g.choice([130, 160, 180])), tool="twine", dom="upload.pypi.org", prefix="pypi-")
V("rubygems-api-key", "RubyGems", ["GEM_HOST_API_KEY"], "api key", lambda g: "rubygems_" + r(g, HEXL, 48), tool="gem", dom="rubygems.org", prefix="rubygems_")
V("nuget-api-key", "NuGet", ["NUGET_API_KEY"], "api key", lambda g: "oy2" + r(g, LOWAN, 43), tool="dotnet nuget", dom="api.nuget.org", prefix="oy2")
V("clojars-token", "Clojars", ["CLOJARS_PASSWORD"], "token", lambda g: "CLOJARS_" + r(g, LOWAN, 60), tool="lein", prefix="CLOJARS_")
V("docker-hub-pat", "Docker Hub", ["DOCKERHUB_TOKEN", "DOCKER_PASSWORD"], "personal access token", lambda g: "dckr_pat_" + r(g, B64URL, 27), tool="docker", dom="hub.docker.com", prefix="dckr_pat_")
V("docker-hub-org-token", "Docker Hub", ["DOCKER_ORG_TOKEN"], "access token", lambda g: "dckr_oat_" + r(g, B64URL, 32), tool="docker", dom="hub.docker.com", prefix="dckr_oat_")
V("circleci-pat", "CircleCI", ["CIRCLECI_TOKEN", "CIRCLE_TOKEN"], "personal access token", lambda g: "CCIPAT_" + r(g, ALNUM, 22) + "_" + r(g, HEXL, 40), tool="circleci", prefix="CCIPAT_")
V("buildkite-token", "Buildkite", ["BUILDKITE_API_TOKEN"], "token", lambda g: "bkua_" + r(g, HEXL, 40), tool="bk", prefix="bkua_")
V("bitbucket-app-password", "Bitbucket", ["BITBUCKET_APP_PASSWORD"], "password", lambda g: "ATBB" + r(g, ALNUM, 32), dom="bitbucket.org", prefix="ATBB")
V("atlassian-api-token", "Atlassian", ["JIRA_API_TOKEN", "CONFLUENCE_API_TOKEN", "ATLASSIAN_API_TOKEN"], "token", lambda g: (lambda body: "ATATT3xFfGF0" + body + "=" + "%08X" % zlib.crc32(body.encode()))(r(g, B64URL, 171)), tool="acli", dom="acme.atlassian.net", prefix="ATATT3xFfGF0")
V("sourcegraph-token", "Sourcegraph", ["SRC_ACCESS_TOKEN"], "access token", lambda g: "sgp_" + r(g, HEXL, 16) + "_" + r(g, HEXL, 40), tool="src", prefix="sgp_")
V("snyk-token", "Snyk", ["SNYK_TOKEN"], "token", lambda g: uuid4(g), tool="snyk", dom="api.snyk.io")
V("infracost-api-key", "Infracost", ["INFRACOST_API_KEY"], "api key", lambda g: "ico-" + r(g, ALNUM, 32), prefix="ico-")
V("prefect-api-key", "Prefect", ["PREFECT_API_KEY"], "api key", lambda g: "pnu_" + r(g, ALNUM, 36), prefix="pnu_")
# --- AI
V("openai-project-key", "OpenAI", ["OPENAI_API_KEY"], "api key", lambda g: g.choice(["sk-proj-", "sk-svcacct-"]) + r(g, B64URL, 74) + "T3BlbkFJ" + r(g, B64URL, 74), tool="openai", dom="api.openai.com", prefix="sk-proj-")
V("openai-legacy-key", "OpenAI", ["OPENAI_API_KEY", "OPENAI_KEY"], "api key", lambda g: "sk-" + r(g, ALNUM, 20) + "T3BlbkFJ" + r(g, ALNUM, 20), tool="openai", dom="api.openai.com", prefix="sk-")
V("anthropic-api-key", "Anthropic", ["ANTHROPIC_API_KEY"], "api key", lambda g: "sk-ant-api03-" + r(g, B64URL, 93) + "AA", tool="claude", dom="api.anthropic.com", prefix="sk-ant-api03-")
V("anthropic-admin-key", "Anthropic", ["ANTHROPIC_ADMIN_KEY"], "api key", lambda g: "sk-ant-admin01-" + r(g, B64URL, 93) + "AA", tool="claude", dom="api.anthropic.com", prefix="sk-ant-admin01-")
V("huggingface-token", "Hugging Face", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"], "token", lambda g: "hf_" + r(g, LET, 34), tool="huggingface-cli", dom="huggingface.co", prefix="hf_")
V("huggingface-org-token", "Hugging Face", ["HF_ORG_TOKEN"], "api key", lambda g: "api_org_" + r(g, LET, 34), tool="huggingface-cli", dom="huggingface.co", prefix="api_org_")
V("groq-api-key", "Groq", ["GROQ_API_KEY"], "api key", lambda g: "gsk_" + r(g, ALNUM, 52), dom="api.groq.com", prefix="gsk_")
V("perplexity-api-key", "Perplexity", ["PERPLEXITY_API_KEY", "PPLX_API_KEY"], "api key", lambda g: "pplx-" + r(g, ALNUM, 48), dom="api.perplexity.ai", prefix="pplx-")
V("replicate-api-token", "Replicate", ["REPLICATE_API_TOKEN"], "token", lambda g: "r8_" + r(g, ALNUM, 37), prefix="r8_")
V("openrouter-api-key", "OpenRouter", ["OPENROUTER_API_KEY"], "api key", lambda g: "sk-or-v1-" + r(g, HEXL, 64), dom="openrouter.ai", prefix="sk-or-v1-")
V("xai-api-key", "xAI", ["XAI_API_KEY"], "api key", lambda g: "xai-" + r(g, ALNUM, 80), dom="api.x.ai", prefix="xai-")
V("deepseek-api-key", "DeepSeek", ["DEEPSEEK_API_KEY"], "api key", lambda g: "sk-" + r(g, HEXL, 32), dom="api.deepseek.com", prefix="sk-")
V("langsmith-api-key", "LangSmith", ["LANGSMITH_API_KEY", "LANGCHAIN_API_KEY"], "api key", lambda g: g.choice(["lsv2_pt_", "lsv2_sk_"]) + r(g, HEXL, 32) + "_" + r(g, HEXL, 10), dom="api.smith.langchain.com", prefix="lsv2_pt_")
V("cohere-api-key", "Cohere", ["COHERE_API_KEY", "CO_API_KEY"], "api key", lambda g: r(g, ALNUM, 40), dom="api.cohere.com")
V("mistral-api-key", "Mistral", ["MISTRAL_API_KEY"], "api key", lambda g: r(g, ALNUM, 32), dom="api.mistral.ai")
# --- SaaS
V("linear-api-key", "Linear", ["LINEAR_API_KEY"], "api key", lambda g: "lin_api_" + r(g, ALNUM, 40), dom="api.linear.app", prefix="lin_api_")
V("notion-legacy-token", "Notion", ["NOTION_TOKEN", "NOTION_API_KEY"], "token", lambda g: "secret_" + r(g, ALNUM, 43), dom="api.notion.com", prefix="secret_")
V("notion-integration-token", "Notion", ["NOTION_TOKEN"], "token", lambda g: "ntn_" + r(g, DIG, 11) + r(g, ALNUM, 35), dom="api.notion.com", prefix="ntn_")
V("airtable-pat", "Airtable", ["AIRTABLE_API_KEY", "AIRTABLE_PAT"], "personal access token", lambda g: "pat" + r(g, ALNUM, 14) + "." + r(g, HEXL, 64), prefix="pat")
V("asana-pat", "Asana", ["ASANA_ACCESS_TOKEN"], "personal access token", lambda g: "2/%s/%s:%s" % (digits(g, 16), digits(g, 16), r(g, HEXL, 32)), prefix="2/")
V("hubspot-private-app-token", "HubSpot", ["HUBSPOT_ACCESS_TOKEN"], "access token", lambda g: g.choice(["pat-na1-", "pat-eu1-"]) + uuid4(g), dom="api.hubapi.com", prefix="pat-na1-")
V("dropbox-access-token", "Dropbox", ["DROPBOX_ACCESS_TOKEN"], "access token", lambda g: "sl.B" + r(g, B64URL, 134), dom="api.dropboxapi.com", prefix="sl.")
V("mapbox-secret-token", "Mapbox", ["MAPBOX_SECRET_TOKEN", "MAPBOX_DOWNLOADS_TOKEN"], "access token", lambda g: "sk." + b64u_nopad(json.dumps({"u": g.choice(USERS), "a": r(g, LOWAN, 25)}, separators=(",", ":")).encode()) + "." + r(g, B64URL, 22), dom="api.mapbox.com", prefix="sk.eyJ")
V("postman-api-key", "Postman", ["POSTMAN_API_KEY"], "api key", lambda g: "PMAK-" + r(g, HEXL, 24) + "-" + r(g, HEXL, 34), dom="api.getpostman.com", prefix="PMAK-")
V("contentful-pat", "Contentful", ["CONTENTFUL_MANAGEMENT_TOKEN"], "personal access token", lambda g: "CFPAT-" + r(g, B64URL, 43), prefix="CFPAT-")
V("figma-pat", "Figma", ["FIGMA_TOKEN"], "personal access token", lambda g: "figd_" + r(g, B64URL, 40), dom="api.figma.com", prefix="figd_")
V("readme-api-key", "ReadMe", ["README_API_KEY"], "api key", lambda g: "rdme_" + r(g, HEXL, 70), dom="dash.readme.com", prefix="rdme_")
V("adafruit-io-key", "Adafruit IO", ["ADAFRUIT_IO_KEY"], "api key", lambda g: "aio_" + r(g, ALNUM, 28), dom="io.adafruit.com", prefix="aio_")
V("zendesk-api-token", "Zendesk", ["ZENDESK_API_TOKEN"], "token", lambda g: r(g, ALNUM, 40), dom="acme.zendesk.com")
V("okta-api-token", "Okta", ["OKTA_API_TOKEN", "OKTA_CLIENT_TOKEN"], "token", lambda g: "00" + r(g, B64URL, 40), dom="acme.okta.com")
V("launchdarkly-sdk-key", "LaunchDarkly", ["LAUNCHDARKLY_SDK_KEY", "LD_SDK_KEY"], "api key", lambda g: "sdk-" + uuid4(g), prefix="sdk-")
V("twitter-bearer-token", "X (Twitter)", ["TWITTER_BEARER_TOKEN"], "token", lambda g: "A" * 22 + r(g, ALNUM, 6) + "A" * 7 + r(g, ALNUM, 10) + "%2B" + r(g, ALNUM, 20) + "%3D" + r(g, ALNUM, 50), tool="twurl", dom="api.twitter.com", prefix="AAAAAAAAAAAAAAAAAAAAA")
V("facebook-access-token", "Meta (Facebook)", ["FB_ACCESS_TOKEN", "META_ACCESS_TOKEN"], "access token", lambda g: "EAA" + g.choice("BGIJ") + r(g, ALNUM, g.choice([150, 180, 200])), dom="graph.facebook.com", prefix="EAA")
# --- Email / messaging
V("sendgrid-api-key", "SendGrid", ["SENDGRID_API_KEY"], "api key", lambda g: "SG." + r(g, B64URL, 22) + "." + r(g, B64URL, 43), dom="api.sendgrid.com", prefix="SG.")
V("mailgun-api-key", "Mailgun", ["MAILGUN_API_KEY"], "api key", lambda g: ("key-" + r(g, HEXL, 32)) if g.random() < 0.5 else (r(g, HEXL, 32) + "-" + r(g, HEXL, 8) + "-" + r(g, HEXL, 8)), dom="api.mailgun.net")
V("mailchimp-api-key", "Mailchimp", ["MAILCHIMP_API_KEY"], "api key", lambda g: r(g, HEXL, 32) + "-us" + str(g.randint(1, 21)), dom="api.mailchimp.com")
V("brevo-api-key", "Brevo", ["BREVO_API_KEY", "SENDINBLUE_API_KEY"], "api key", lambda g: "xkeysib-" + r(g, HEXL, 64) + "-" + r(g, ALNUM, 16), dom="api.brevo.com", prefix="xkeysib-")
V("resend-api-key", "Resend", ["RESEND_API_KEY"], "api key", lambda g: "re_" + r(g, ALNUM, 8) + "_" + r(g, ALNUM, 24), dom="api.resend.com", prefix="re_")
V("postmark-server-token", "Postmark", ["POSTMARK_SERVER_TOKEN"], "token", lambda g: uuid4(g), dom="api.postmarkapp.com")
# --- Observability
V("newrelic-user-api-key", "New Relic", ["NEW_RELIC_API_KEY"], "api key", lambda g: "NRAK-" + r(g, UPAN, 27), dom="api.newrelic.com", prefix="NRAK-")
V("newrelic-insert-key", "New Relic", ["NEW_RELIC_INSERT_KEY"], "api key", lambda g: "NRII-" + r(g, B64URL, 32), dom="insights-collector.newrelic.com", prefix="NRII-")
V("newrelic-license-key", "New Relic", ["NEW_RELIC_LICENSE_KEY"], "api key", lambda g: r(g, HEXL, 36) + "NRAL", key="license_key", dom="collector.newrelic.com")
V("sentry-auth-token", "Sentry", ["SENTRY_AUTH_TOKEN"], "auth token", lambda g: ("sntryu_" + r(g, HEXL, 64)) if g.random() < 0.5 else ("sntrys_" + b64u_nopad(json.dumps({"iat": g.randint(1735689600, 1798761600), "url": "https://sentry.io", "region_url": "https://us.sentry.io", "org": g.choice(["acme", "hanbit"])}, separators=(",", ":")).encode()) + "_" + r(g, B64URL, 43)), tool="sentry-cli", dom="sentry.io", prefix="sntrys_")
V("grafana-cloud-token", "Grafana Cloud", ["GRAFANA_CLOUD_TOKEN"], "token", lambda g: "glc_" + b64u_nopad(json.dumps({"o": digits(g, 6), "n": "stack-" + digits(g, 6) + "-hm-read", "k": r(g, ALNUM, 24), "m": {"r": "prod-ap-northeast-0"}}, separators=(",", ":")).encode()), dom="grafana.net", prefix="glc_")
V("grafana-service-account-token", "Grafana", ["GRAFANA_SA_TOKEN", "GRAFANA_AUTH"], "token", lambda g: "glsa_" + r(g, ALNUM, 32) + "_" + r(g, HEXL, 8), dom="grafana.acme.io", prefix="glsa_")
V("dynatrace-api-token", "Dynatrace", ["DT_API_TOKEN"], "token", lambda g: "dt0c01." + r(g, UPAN, 24) + "." + r(g, UPAN, 64), dom="live.dynatrace.com", prefix="dt0c01.")
V("rollbar-access-token", "Rollbar", ["ROLLBAR_ACCESS_TOKEN"], "access token", lambda g: r(g, HEXL, 32), dom="api.rollbar.com")
V("elastic-api-key", "Elastic", ["ELASTIC_API_KEY", "ES_API_KEY"], "api key", lambda g: base64.b64encode((r(g, B64URL, 20) + ":" + r(g, B64URL, 22)).encode()).decode(), dom="acme.es.ap-northeast-2.aws.elastic-cloud.com")

# --- pairs (id + secret)
V("aws-access-key-pair", "AWS", ["AWS_SECRET_ACCESS_KEY"], "secret key", None, kind="pair", id_env="AWS_ACCESS_KEY_ID", id_what="access key id", id_sensitive=True, tool="aws", dom="amazonaws.com", key="aws_secret_access_key")
V("twilio-auth-token", "Twilio", ["TWILIO_AUTH_TOKEN"], "auth token", None, kind="pair", id_env="TWILIO_ACCOUNT_SID", id_what="Account SID", id_sensitive=False, dom="api.twilio.com")
V("twilio-api-key-secret", "Twilio", ["TWILIO_API_SECRET"], "api key", None, kind="pair", id_env="TWILIO_API_KEY", id_what="API key SID", id_sensitive=False, dom="api.twilio.com", key="api_secret")
V("datadog-api-app-keys", "Datadog", ["DD_APP_KEY"], "api key", None, kind="pair", id_env="DD_API_KEY", id_what="API key", id_sensitive=True, dom="api.datadoghq.com", key="app_key")
V("paypal-client-secret", "PayPal", ["PAYPAL_CLIENT_SECRET"], "client secret", None, kind="pair", id_env="PAYPAL_CLIENT_ID", id_what="client id", id_sensitive=False, dom="api-m.paypal.com")
V("razorpay-key-secret", "Razorpay", ["RAZORPAY_KEY_SECRET"], "secret key", None, kind="pair", id_env="RAZORPAY_KEY_ID", id_what="key id", id_sensitive=False, dom="api.razorpay.com", key="key_secret")
V("plaid-client-secret", "Plaid", ["PLAID_SECRET"], "client secret", None, kind="pair", id_env="PLAID_CLIENT_ID", id_what="client_id", id_sensitive=False, dom="production.plaid.com", key="secret")
V("algolia-admin-key", "Algolia", ["ALGOLIA_ADMIN_KEY"], "api key", None, kind="pair", id_env="ALGOLIA_APP_ID", id_what="application id", id_sensitive=False, dom="algolia.net", key="admin_api_key")
V("cloudflare-global-api-key", "Cloudflare", ["CLOUDFLARE_API_KEY", "CF_API_KEY"], "api key", None, kind="pair", id_env="CLOUDFLARE_EMAIL", id_what="account email", id_sensitive=False, tool="wrangler", dom="api.cloudflare.com")
V("square-app-secret-pair", "Square", ["SQUARE_APP_SECRET"], "client secret", None, kind="pair", id_env="SQUARE_APPLICATION_ID", id_what="application id", id_sensitive=False, dom="connect.squareup.com", key="application_secret")
V("mailgun-webhook-signing-key", "Mailgun", ["MAILGUN_WEBHOOK_SIGNING_KEY"], "secret key", None, kind="pair", id_env="MAILGUN_DOMAIN", id_what="sending domain", id_sensitive=False, dom="api.mailgun.net", key="webhook_signing_key")
V("sumologic-access-key", "Sumo Logic", ["SUMO_ACCESS_KEY"], "api key", None, kind="pair", id_env="SUMO_ACCESS_ID", id_what="access id", id_sensitive=False, dom="api.sumologic.com", key="access_key")


def pair_gen(fam, g):
    n = fam.name
    if n == "aws-access-key-pair":
        return ("AKIA" + r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), r(g, B64, 40))
    if n == "twilio-auth-token":
        return ("AC" + r(g, HEXL, 32), r(g, HEXL, 32))
    if n == "twilio-api-key-secret":
        return ("SK" + r(g, HEXL, 32), r(g, ALNUM, 32))
    if n == "datadog-api-app-keys":
        return (r(g, HEXL, 32), r(g, HEXL, 40))
    if n == "paypal-client-secret":
        return ("A" + r(g, B64URL, 79), "E" + r(g, B64URL, 79))
    if n == "razorpay-key-secret":
        return ("rzp_live_" + r(g, ALNUM, 14), r(g, ALNUM, 24))
    if n == "plaid-client-secret":
        return (r(g, HEXL, 24), r(g, HEXL, 30))
    if n == "algolia-admin-key":
        return (r(g, UPAN, 10), r(g, HEXL, 32))
    if n == "cloudflare-global-api-key":
        return (fill_common("email", g), r(g, HEXL, 37))
    if n == "square-app-secret-pair":
        return ("sq0idp-" + r(g, B64URL, 22), "sq0csp-" + r(g, B64URL, 43))
    if n == "mailgun-webhook-signing-key":
        return ("mg." + g.choice(["acme.io", "hanbit.kr", "mail.example.com"]), r(g, HEXL, 32))
    if n == "sumologic-access-key":
        return ("su" + r(g, ALNUM, 12), r(g, ALNUM, 64))
    raise KeyError(n)


# =========================================================================
# Native / structural families: gen(g) -> (vars, secret_fields, public_fields)
# templates: {"a": [(lang, form, text)], "b": [...], "h": [...]}
# =========================================================================
def N(name, vendor, gen, templates, ph_ok=False, category="structural", what="password", env=None, ph_fields=("S",)):
    f = Fam(name, vendor, env or ["SECRET"], what, gen, kind="native", native=templates, ph_ok=ph_ok, category=category)
    f.ph_fields = ph_fields
    return f


def T(block):
    """Parse a template block: entries separated by lines of '---'; first line of
    each entry is 'lang form', the rest is the template text."""
    out = []
    for ent in block.strip("\n").split("\n---\n"):
        head, _, body = ent.partition("\n")
        lang, form = head.split()
        out.append((lang, form, body))
    return out


def _pw(g):
    return {"S": plain_pw(g), "user": g.choice(USERS), "host": g.choice(HOSTS)}, ["S"], []


def _upw(g):
    return {"S": url_pw(g), "user": g.choice(USERS), "host": g.choice(HOSTS)}, ["S"], []


def _aws_sts(g):
    v = {"ID": "ASIA" + r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "S": r(g, B64, 40),
         "TOK": "IQoJb3JpZ2luX2Vj" + r(g, B64, g.choice([340, 420, 600])), "acct": digits(g, 12)}
    return v, ["ID", "S", "TOK"], ["acct"]


N("aws-sts-session-credentials", "AWS", _aws_sts, {
    "a": T("""
en ini
[profile-mfa]
aws_access_key_id = «ID»
aws_secret_access_key = «S»
aws_session_token = «TOK»
---
en shell
export AWS_ACCESS_KEY_ID=«ID» AWS_SECRET_ACCESS_KEY=«S» AWS_SESSION_TOKEN=«TOK»
---
ko prose
assume-role 결과 임시 자격증명 공유합니다 (1시간 유효): AccessKeyId «ID» / SecretAccessKey «S» / SessionToken «TOK»
"""),
    "b": T("""
en json
{"Credentials": {"AccessKeyId": "«ID»", "SecretAccessKey": "«S»", "SessionToken": "«TOK»", "Expiration": "2026-06-01T12:00:00Z"}, "AssumedRoleUser": {"Arn": "arn:aws:sts::«acct»:assumed-role/deploy/ci"}}
---
en dotenv
AWS_ACCESS_KEY_ID=«ID»
AWS_SECRET_ACCESS_KEY=«S»
AWS_SESSION_TOKEN=«TOK»
---
ko chat
이 임시 키로 다시 돌려볼래요? ID=«ID» SECRET=«S» TOKEN=«TOK»
"""),
    "h": T("""
en yaml
env:
  AWS_ACCESS_KEY_ID: «ID»
  AWS_SECRET_ACCESS_KEY: «S»
  AWS_SESSION_TOKEN: «TOK»
---
en log
botocore.credentials DEBUG Found credentials in environment variables: key=«ID» secret=«S» token=«TOK»
---
ko shell
# 세션 토큰 만료 전에 빨리 테스트
AWS_ACCESS_KEY_ID=«ID» AWS_SECRET_ACCESS_KEY=«S» AWS_SESSION_TOKEN=«TOK» aws s3 ls
"""),
}, category="vendor", what="secret key")


def _gcp_sa(g):
    pem = pem_pkcs8(g)
    esc = pem.replace("\n", "\\n") + "\\n"
    proj = g.choice(["acme-prod", "journal-staging-4471", "hanbit-data", "ml-batch-123"])
    email = "%s@%s.iam.gserviceaccount.com" % (g.choice(["deployer", "ci-runner", "bq-reader", "terraform"]), proj)
    return {"S": esc, "kid": r(g, HEXL, 40), "email": email, "proj": proj, "cid": digits(g, 21)}, ["S"], ["email", "kid"]


N("gcp-service-account-json", "Google Cloud", _gcp_sa, {
    "a": T("""
en json
{"type": "service_account", "project_id": "«proj»", "private_key_id": "«kid»", "private_key": "«S»", "client_email": "«email»", "client_id": "«cid»"}
---
ko prose
BigQuery 배치용 서비스 계정 키 붙여둡니다: {"type": "service_account", "private_key_id": "«kid»", "private_key": "«S»", "client_email": "«email»"}
"""),
    "b": T("""
en json
{
  "type": "service_account",
  "project_id": "«proj»",
  "private_key_id": "«kid»",
  "private_key": "«S»",
  "client_email": "«email»",
  "token_uri": "https://oauth2.googleapis.com/token"
}
---
ko chat
GOOGLE_APPLICATION_CREDENTIALS 파일 내용: "private_key": "«S»", "client_email": "«email»"
"""),
    "h": T("""
en yaml
gcp_credentials: '{"type":"service_account","project_id":"«proj»","private_key":"«S»","client_email":"«email»"}'
---
ko shell
# 시크릿에 SA 키 넣기
echo '{"type":"service_account","private_key_id":"«kid»","private_key":"«S»","client_email":"«email»"}' > /tmp/sa.json
"""),
}, category="vendor", what="private key")


def _az_storage(g):
    acct = g.choice(["acmeprodlogs", "journalblobs", "hanbitbackup01", "stdatalake"])
    return {"S": b64(g, 64), "acct": acct}, ["S"], ["acct"]


N("azure-storage-account-key", "Azure Storage", _az_storage, {
    "a": T("""
en dotenv
AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=«acct»;AccountKey=«S»;EndpointSuffix=core.windows.net
---
en shell
az storage blob upload --account-name «acct» --account-key «S» -c exports -f report.csv
---
ko prose
스토리지 계정 «acct» 키1: «S»
"""),
    "b": T("""
en json
"ConnectionStrings": { "Blob": "DefaultEndpointsProtocol=https;AccountName=«acct»;AccountKey=«S»;EndpointSuffix=core.windows.net" }
---
en yaml
storage:
  account: «acct»
  key: «S»
---
ko chat
AccountKey=«S» 로 바꾸니까 403 없어졌어요
"""),
    "h": T("""
en log
Azure.RequestFailedException: Server failed to authenticate the request. conn="AccountName=«acct»;AccountKey=«S»"
---
en shell
export AZURE_STORAGE_KEY='«S»'
---
ko prose
백업용 blob 계정(«acct») 액세스 키 교체 전 값 메모: «S»
"""),
}, category="vendor", what="api key", ph_ok=True)


def _az_sas(g):
    sig = urllib.parse.quote(b64(g, 32), safe="")
    acct = g.choice(["acmeprodlogs", "journalblobs", "stdatalake"])
    return {"S": sig, "acct": acct, "se": "2026-%02d-28T00:00:00Z" % g.randint(1, 12)}, ["S"], ["acct"]


N("azure-sas-token", "Azure Storage", _az_sas, {
    "a": T("""
en url
https://«acct».blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r&se=«se»&spr=https&sig=«S»
---
ko prose
외부 업체에 줄 다운로드 링크(SAS): https://«acct».blob.core.windows.net/share/data.zip?sp=r&se=«se»&sv=2022-11-02&sr=b&sig=«S»
"""),
    "b": T("""
en shell
azcopy copy ./dist "https://«acct».blob.core.windows.net/web?sv=2022-11-02&sp=racwl&se=«se»&sr=c&sig=«S»" --recursive
---
ko chat
sig=«S» 붙은 SAS URL 만료가 «se» 라서 괜찮을 듯
"""),
    "h": T("""
en dotenv
AZURE_SAS_TOKEN="sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacup&se=«se»&spr=https&sig=«S»"
---
ko log
[업로드 실패] PUT https://«acct».blob.core.windows.net/logs/app.log?se=«se»&sp=w&sig=«S» -> 403
"""),
}, category="vendor", what="token")


def _az_sb(g):
    ns = g.choice(["acme-events", "journal-bus", "hanbit-orders"])
    return {"S": b64(g, 32), "ns": ns}, ["S"], ["ns"]


N("azure-servicebus-sas-key", "Azure Service Bus", _az_sb, {
    "a": T("""
en dotenv
SERVICEBUS_CONNECTION=Endpoint=sb://«ns».servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«S»
---
ko prose
이벤트허브 «ns» 연결 문자열의 SharedAccessKey=«S» 는 다음 주 교체
"""),
    "b": T("""
en json
{"EventHubConnection": "Endpoint=sb://«ns».servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=«S»;EntityPath=orders"}
---
ko chat
Service Bus 키: «S» (send 권한만)
"""),
    "h": T("""
en yaml
connectionString: "Endpoint=sb://«ns».servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=«S»"
---
ko log
연결 실패 Endpoint=sb://«ns».servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=«S» (401)
"""),
}, category="vendor", what="api key")


def _cosmos(g):
    acct = g.choice(["acme-cosmos", "journal-docs", "hanbit-catalog"])
    return {"S": b64(g, 64), "acct": acct}, ["S"], ["acct"]


N("azure-cosmosdb-key", "Azure Cosmos DB", _cosmos, {
    "a": T("""
en dotenv
COSMOS_CONNECTION_STRING=AccountEndpoint=https://«acct».documents.azure.com:443/;AccountKey=«S»;
---
ko prose
Cosmos «acct» 기본 키(primary key): «S»
"""),
    "b": T("""
en code
client = CosmosClient("https://«acct».documents.azure.com:443/", credential="«S»")
---
ko chat
cosmos 키 «S» 넣으니까 로컬에서 붙어요
"""),
    "h": T("""
en json
"Cosmos": { "Endpoint": "https://«acct».documents.azure.com:443/", "Key": "«S»" }
---
ko dotenv
# 코스모스 읽기/쓰기 키
COSMOS_KEY=«S»
"""),
}, category="vendor", what="api key")


def _cloudinary(g):
    cloud = g.choice(["acme-media", "dj-assets", "hanbit"])
    return {"S": r(g, B64URL, 27), "kid": digits(g, 15), "cloud": cloud}, ["S"], ["kid"]


N("cloudinary-url", "Cloudinary", _cloudinary, {
    "a": T("""
en dotenv
CLOUDINARY_URL=cloudinary://«kid»:«S»@«cloud»
---
ko prose
이미지 업로드용 CLOUDINARY_URL 은 cloudinary://«kid»:«S»@«cloud» 입니다
"""),
    "b": T("""
en code
cloudinary.config(cloud_name="«cloud»", api_key="«kid»", api_secret="«S»")
---
ko chat
api_secret 이 «S» 인데 업로드 서명 에러 나요
"""),
    "h": T("""
en yaml
cloudinary:
  cloud_name: «cloud»
  api_key: "«kid»"
  api_secret: "«S»"
---
ko shell
export CLOUDINARY_URL="cloudinary://«kid»:«S»@«cloud»"  # 미디어 마이그레이션용
"""),
}, category="vendor", what="client secret")


# ------------------------------------------------------------------ passwords in URLs
def _db_url(g):
    v, s, p = _upw(g)
    v["db"] = g.choice(DBS)
    return v, s, ["host"]


N("url-userinfo-postgres", "PostgreSQL", _db_url, {
    "a": T("""
en dotenv
DATABASE_URL=postgres://«user»:«S»@«host»:5432/«db»
---
en prose
connect with psql postgresql://«user»:«S»@«host»/«db»?sslmode=require and run the migration before noon
---
ko prose
스테이징 DB 접속 주소: postgres://«user»:«S»@«host»:5432/«db»
"""),
    "b": T("""
en yaml
  url: postgresql://«user»:«S»@«host»:5432/«db»
---
en log
sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect: postgresql+psycopg2://«user»:«S»@«host»/«db»
---
ko chat
이 URL로 붙으면 돼요 → postgresql://«user»:«S»@«host»/«db»
"""),
    "h": T("""
en json
"dsn": "postgres://«user»:«S»@«host»:6432/«db»?pool_max_conns=10",
---
en shell
pg_dump 'postgresql://«user»:«S»@«host»:5432/«db»' > /tmp/«db».sql
---
ko prose
pgbouncer 경유 DSN 공유드립니다: postgres://«user»:«S»@«host»:6432/«db»
"""),
}, ph_ok=True)

N("url-userinfo-mysql-mongo", "MySQL/MongoDB", _db_url, {
    "a": T("""
en dotenv
MONGO_URI=mongodb+srv://«user»:«S»@cluster0.x7k2p.mongodb.net/«db»?retryWrites=true&w=majority
---
en code
engine = create_engine("mysql+pymysql://«user»:«S»@«host»:3306/«db»")
---
ko prose
몽고 접속 문자열 mongodb://«user»:«S»@«host»:27017/«db» 로 바꿨음
"""),
    "b": T("""
en yaml
spring.datasource.url: jdbc:mysql://«user»:«S»@«host»:3306/«db»
---
en shell
mongosh "mongodb+srv://«user»:«S»@cluster1.ab12c.mongodb.net/«db»"
---
ko chat
mysql://«user»:«S»@«host»/«db» 이걸로 metabase 연결했어요
"""),
    "h": T("""
en log
pymongo.errors.OperationalError: Authentication failed., full error: uri=mongodb://«user»:«S»@«host»:27017/«db»?authSource=admin
---
en toml
[database]
url = "mysql://«user»:«S»@«host»:3306/«db»"
---
ko dotenv
# 리포팅용 읽기 전용 계정
MYSQL_URL=mysql://«user»:«S»@«host»:3306/«db»
"""),
}, ph_ok=True)


def _redis_url(g):
    return {"S": url_pw(g), "host": g.choice(HOSTS)}, ["S"], ["host"]


N("url-userinfo-redis", "Redis", _redis_url, {
    "a": T("""
en dotenv
REDIS_URL=redis://:«S»@«host»:6379/0
---
ko prose
캐시 서버 주소는 rediss://default:«S»@«host»:6380 입니다
"""),
    "b": T("""
en yaml
cache:
  url: "rediss://default:«S»@«host»:6380/1"
---
ko chat
celery broker를 redis://:«S»@«host»:6379/2 로 바꿨더니 됨
"""),
    "h": T("""
en code
r = redis.from_url("redis://default:«S»@«host»:6379/0")
---
ko log
[경고] redis 연결 재시도 url=redis://:«S»@«host»:6379/0
"""),
}, ph_ok=True)

N("url-userinfo-amqp-smtp-ftp", "RabbitMQ/SMTP/FTP", _upw, {
    "a": T("""
en dotenv
CELERY_BROKER_URL=amqp://«user»:«S»@«host»:5672/prod
---
en dotenv
EMAIL_URL=smtp+tls://«user»@acme.io:«S»@smtp.gmail.com:587
---
ko prose
사내 FTP: ftp://«user»:«S»@«host»/uploads 에 올려주세요
"""),
    "b": T("""
en yaml
spring.rabbitmq.addresses: amqps://«user»:«S»@«host»:5671/%2f
---
en shell
lftp sftp://«user»:«S»@«host» -e "mirror --reverse ./build /var/www"
---
ko chat
메일 발송 설정 smtp://«user»:«S»@«host»:465 으로 하면 돼요
"""),
    "h": T("""
en log
kombu.exceptions.OperationalError: [Errno 111] Connection refused (amqp://«user»:«S»@«host»:5672//)
---
en json
{"smtp": "smtps://«user»:«S»@«host»:465"}
---
ko prose
MQ 접속 정보 amqp://«user»:«S»@«host»:5672/ — 운영 반영 전에 바꿀 것
"""),
}, ph_ok=True)


def _git_url(g):
    tok = g.choice([url_pw(g), r(g, ALNUM, 20), "glpat-" + r(g, B64URL, 20), crc_b62_token(g, "ghp_")])
    return {"S": tok, "user": g.choice(USERS + ["oauth2", "x-access-token", "gitlab-ci-token"]), "repo": g.choice(REPOS)}, ["S"], []


N("url-userinfo-git-https", "Git over HTTPS", _git_url, {
    "a": T("""
en shell
git clone https://«user»:«S»@github.com/«repo».git
---
ko prose
미러링 remote 는 https://«user»:«S»@gitlab.com/«repo».git 로 설정함
"""),
    "b": T("""
en netrc
https://«user»:«S»@github.com
---
ko shell
git remote set-url origin https://«user»:«S»@bitbucket.org/«repo».git  # 임시
"""),
    "h": T("""
en log
fatal: unable to access 'https://«user»:«S»@git.acme.io/«repo».git/': The requested URL returned error: 403
---
ko chat
pip install git+https://«user»:«S»@github.com/«repo».git 로 설치하세요
"""),
}, ph_ok=True)

# ------------------------------------------------------------------ command-line flags
N("flag-password-long", "CLI flags", _pw, {
    "a": T("""
en shell
./manage.py createsuperuser --username «user» --password «S»
---
en shell
mongodump --host «host» --username «user» --password '«S»' --out /backup
---
ko shell
# 운영 DB 덤프 (비번 나중에 바꿀 것)
pgcli --host «host» --user «user» --password=«S»
"""),
    "b": T("""
en shell
docker run -d --name kc quay.io/keycloak/keycloak start-dev --db-password=«S» --db-username=«user»
---
en flag
ansible-playbook site.yml -e ansible_become_password=«S» -e ansible_user=«user»
---
ko shell
vault login -method=userpass username=«user» password=«S»   # 볼트 로그인
"""),
    "h": T("""
en shell
java -jar liquibase.jar --url=jdbc:postgresql://«host»/app --username=«user» --password=«S» update
---
en flag
influx setup --username «user» --password «S» --org acme --bucket metrics --force
---
ko shell
rabbitmqctl add_user «user» '«S»'   # 새 큐 계정
"""),
}, ph_ok=True)

N("flag-mysql-p", "MySQL", _pw, {
    "a": T("""
en shell
mysql -h «host» -u «user» -p«S» -e "SHOW PROCESSLIST"
---
ko shell
mysqldump -u«user» -p'«S»' --single-transaction orders > orders.sql   # 마이그레이션 전 백업
"""),
    "b": T("""
en shell
mysql --user=«user» --password=«S» --host=«host» billing < fix.sql
---
ko prose
로컬에서 mysql -uroot -p«S» 로 접속 안 되면 소켓 경로 확인
"""),
    "h": T("""
en shell
mysqladmin -u «user» -p"«S»" -h «host» status
---
ko chat
docker exec -it mysql mysql -u«user» -p«S» 치면 들어가져요
"""),
}, ph_ok=True)

N("env-pgpassword", "PostgreSQL", _pw, {
    "a": T("""
en shell
PGPASSWORD=«S» psql -h «host» -U «user» -d app -c 'select 1'
---
ko shell
PGPASSWORD='«S»' pg_restore -h «host» -U «user» -d app latest.dump  # 복구 테스트
"""),
    "b": T("""
en shell
export PGPASSWORD="«S»"; psql -h «host» -U «user» journal
---
ko prose
배치 스크립트에 PGPASSWORD=«S» 가 하드코딩되어 있어서 제거 예정
"""),
    "h": T("""
en dotenv
PGHOST=«host»
PGUSER=«user»
PGPASSWORD=«S»
---
ko shell
env PGPASSWORD=«S» pgbench -h «host» -U «user» -c 10 -T 60 bench   # 부하 테스트
"""),
}, ph_ok=True)

N("redis-auth", "Redis", _pw, {
    "a": T("""
en shell
redis-cli -h «host» -p 6379 -a «S» INFO replication
---
en ini
requirepass «S»
---
ko prose
redis.conf 에 requirepass «S» 넣고 재시작했습니다
"""),
    "b": T("""
en shell
redis-cli -a '«S»' --no-auth-warning -h «host» FLUSHDB
---
en ini
masterauth «S»
---
ko chat
redis-cli -h «host» -a «S» 로 keys 확인 가능해요
"""),
    "h": T("""
en shell
redis-cli --user «user» --pass «S» -h «host» PING
---
en log
redis | AUTH «S» -> OK (client «ip»)
---
ko shell
CONFIG SET requirepass "«S»"   # 센티넬 쪽도 같이 바꿔야 함
"""),
}, ph_ok=True)

N("sshpass", "SSH", _pw, {
    "a": T("""
en shell
sshpass -p '«S»' ssh -o StrictHostKeyChecking=no «user»@«host»
---
ko shell
sshpass -p «S» scp backup.tar.gz «user»@«host»:/data/  # 임시 배포
"""),
    "b": T("""
en shell
sshpass -p "«S»" rsync -avz ./dist/ «user»@«host»:/var/www/
---
ko prose
베스천 접속은 sshpass -p «S» ssh «user»@«host» 로 하면 됩니다
"""),
    "h": T("""
en yaml
ansible_ssh_pass: «S»
---
ko shell
for h in web1 web2; do sshpass -p '«S»' ssh «user»@$h uptime; done  # 점검
"""),
}, ph_ok=True)

N("curl-basic-user", "curl", _pw, {
    "a": T("""
en shell
curl -u «user»:«S» https://«host»/api/v1/health
---
ko shell
curl -s -u "«user»:«S»" -X POST https://jenkins.acme.io/job/deploy/build  # 젠킨스 빌드 트리거
"""),
    "b": T("""
en shell
curl --user '«user»:«S»' -T build.zip https://nexus.acme.io/repository/raw/
---
ko chat
curl -u «user»:«S» https://«host»/metrics 해보면 200 나와요
"""),
    "h": T("""
en shell
wget --user=«user» --password='«S»' https://artifacts.acme.io/releases/app.tar.gz
---
ko shell
http -a «user»:«S» GET https://«host»/admin/stats  # httpie 로 확인
"""),
}, ph_ok=True)

N("cli-login-password", "Registry login", _pw, {
    "a": T("""
en shell
docker login registry.acme.io -u «user» -p «S»
---
ko shell
helm repo add internal https://charts.acme.io --username «user» --password «S»   # 사내 차트 저장소
"""),
    "b": T("""
en shell
echo «S» | docker login ghcr.io -u «user» --password-stdin
---
ko prose
twine upload -u «user» -p «S» dist/* 로 사내 PyPI 에 올렸습니다
"""),
    "h": T("""
en shell
podman login quay.io --username «user» --password '«S»'
---
ko shell
oc login https://api.ocp.acme.io:6443 -u «user» -p «S»   # 오픈시프트
"""),
}, ph_ok=True)

N("ldap-bind-password", "LDAP", _pw, {
    "a": T("""
en shell
ldapsearch -x -H ldap://«host» -D "cn=«user»,dc=acme,dc=io" -w «S» "(uid=minseo)"
---
ko ini
# LDAP 연동 바인드 계정
bind_password = «S»
"""),
    "b": T("""
en yaml
ldap:
  bind_dn: cn=«user»,ou=svc,dc=acme,dc=io
  bind_password: "«S»"
---
ko prose
AD 바인드 계정 «user» 암호는 «S» 이고 분기마다 교체
"""),
    "h": T("""
en ini
[ldap]
bind_dn = uid=«user»,cn=users,dc=hanbit,dc=kr
bind_pw = «S»
---
ko shell
ldapwhoami -x -D "uid=«user»,dc=hanbit,dc=kr" -w '«S»' -H ldaps://«host»   # 바인드 계정 확인
"""),
}, ph_ok=True)

# ------------------------------------------------------------------ prose
N("prose-password-en", "prose", _pw, {
    "a": T("""
en prose
the password is «S» for now, I'll rotate it after the demo
---
en prose
pw for the bastion: «S»
---
en chat
fyi the admin password on «host» is «S» — please don't change it until Friday
"""),
    "b": T("""
en prose
Login for the staging Grafana is «user» / «S»
---
en chat
passphrase for the deploy key is «S» btw
---
en commit
docs: add temporary admin creds («user» / «S») to the runbook
"""),
    "h": T("""
en prose
Decision: we keep a break-glass root account; its password («S») lives only in this note until the vault migration lands.
---
en chat
wifi at the office is "Acme-Guest" and the password is «S»
---
en prose
I reset «user»'s password to «S» and asked them to change it on first login.
"""),
}, ph_ok=True)

N("prose-password-ko", "prose (Korean)", _pw, {
    "a": T("""
ko prose
관리자 암호: «S»
---
ko prose
비밀번호는 «S» 입니다. 데모 끝나면 바꿀게요
---
ko chat
«host» 루트 비번 «S» 이에요
"""),
    "b": T("""
ko prose
스테이징 그라파나 계정은 «user» / «S» 입니다
---
ko chat
배포 키 패스프레이즈는 «S» 예요
---
ko prose
결정 사항: 비상용 계정을 유지한다. 현재 비밀번호 «S» (볼트 이전 후 삭제)
"""),
    "h": T("""
ko prose
사무실 와이파이 비밀번호: «S»
---
ko chat
«user» 계정 임시 비밀번호를 «S» 로 초기화했어요. 첫 로그인 때 바꾸라고 전달함
---
ko prose
참고로 NAS 관리자 패스워드는 «S» — 다음 주에 교체 예정
"""),
}, ph_ok=True)


# ------------------------------------------------------------------ key/value with secret-ish key names
def _kv(g):
    v, s, p = _pw(g)
    v["k"] = g.choice(["password", "passwd", "pw", "pass", "db_password", "admin_pass", "smtp_password", "PASSWORD", "Password"])
    v["K"] = v["k"].upper()
    return v, s, p


N("kv-password", "key/value", _kv, {
    "a": T("""
en dotenv
«K»=«S»
---
en yaml
«k»: «S»
---
ko json
{"«k»": "«S»", "comment": "임시 계정"}
"""),
    "b": T("""
en ini
[mail]
host = smtp.acme.io
«k» = «S»
---
en toml
«k» = "«S»"
---
ko yaml
# 결제 DB 계정
«k»: "«S»"
"""),
    "h": T("""
en json
  "«k»": "«S»",
---
en code
«k» = "«S»"  # TODO move to vault
---
ko ini
; 사내 메일 릴레이
«k»=«S»
"""),
}, ph_ok=True)


def _kvs(g):
    val = g.choice([r(g, ALNUM, g.randint(24, 48)), r(g, HEXL, 64), b64(g, 32), plain_pw(g)])
    k = g.choice(["secret", "client_secret", "app_secret", "auth", "auth_token", "credential", "credentials",
                  "api_key", "apikey", "access_key", "private_key", "signing_secret", "secret_key", "token",
                  "webhook_secret", "encryption_key"])
    return {"S": val, "k": k, "K": k.upper(), "kc": keyc(k)}, ["S"], []


N("kv-secret-keyname", "key/value", _kvs, {
    "a": T("""
en dotenv
APP_«K»=«S»
---
en yaml
«k»: «S»
---
ko prose
«k» 값은 «S» 로 설정했습니다
"""),
    "b": T("""
en json
{"«kc»": "«S»"}
---
en shell
export «K»='«S»'
---
ko chat
서명 검증용 «k» = «S» 맞나요?
"""),
    "h": T("""
en toml
[service]
«k» = "«S»"
---
en code
const «kc» = "«S»";
---
ko yaml
# 외부 연동 («k»)
«k»: '«S»'
"""),
}, ph_ok=True)


def _kvko(g):
    val = g.choice([plain_pw(g), r(g, ALNUM, 32), r(g, HEXL, 40)])
    k = g.choice(["암호", "비밀번호", "토큰", "키", "API 키", "액세스 토큰", "비번", "패스워드"])
    return {"S": val, "k": k, "user": g.choice(USERS)}, ["S"], []


N("kv-korean-keyname", "key/value (Korean)", _kvko, {
    "a": T("""
ko pair
«k»: «S»
---
ko prose
계정: «user» / «k»: «S»
"""),
    "b": T("""
ko pair
«k» = «S»
---
ko prose
- 서버: «host»\n- «k»: «S»
"""),
    "h": T("""
ko pair
[«k»] «S»
---
ko prose
운영 «k» → «S» (공유 금지)
"""),
})


# ------------------------------------------------------------------ config files
def _netrc(g):
    return {"S": g.choice([plain_pw(g), crc_b62_token(g, "ghp_"), r(g, ALNUM, 32)]), "user": g.choice(USERS),
            "mhost": g.choice(["api.heroku.com", "github.com", "artifacts.acme.io", "ftp.hanbit.kr", "urs.earthdata.nasa.gov"])}, ["S"], ["mhost"]


N("netrc", ".netrc", _netrc, {
    "a": T("""
en netrc
machine «mhost»
  login «user»
  password «S»
---
ko netrc
# ~/.netrc (배포 서버용)
machine «mhost» login «user» password «S»
"""),
    "b": T("""
en netrc
machine «mhost» login «user» password «S»
default login anonymous password guest@
---
ko prose
~/.netrc 에 machine «mhost» login «user» password «S» 한 줄 추가하면 인증 통과
"""),
    "h": T("""
en shell
echo "machine «mhost» login «user» password «S»" >> ~/.netrc && chmod 600 ~/.netrc
---
ko netrc
machine «mhost»
    login «user»
    password «S»
# 위 계정은 CI 전용
"""),
}, ph_ok=True)


def _npmrc(g):
    kind = g.randrange(3)
    if kind == 0:
        return {"S": crc_b62_token(g, "npm_"), "line": "_authToken"}, ["S"], []
    if kind == 1:
        return {"S": base64.b64encode(("%s:%s" % (g.choice(USERS), plain_pw(g))).encode()).decode(), "line": "_auth"}, ["S"], []
    return {"S": base64.b64encode(plain_pw(g).encode()).decode(), "line": "_password"}, ["S"], []


N("npmrc-auth", ".npmrc", _npmrc, {
    "a": T("""
en npmrc
//registry.npmjs.org/:«line»=«S»
---
ko npmrc
; 사내 레지스트리
@acme:registry=https://npm.acme.io/
//npm.acme.io/:«line»=«S»
"""),
    "b": T("""
en npmrc
registry=https://artifacts.acme.io/api/npm/npm/
//artifacts.acme.io/api/npm/npm/:«line»=«S»
always-auth=true
---
ko prose
.npmrc 에 //registry.npmjs.org/:«line»=«S» 넣어두면 publish 됨
"""),
    "h": T("""
en yaml
npmAuthToken: "«S»"
npmRegistryServer: "https://npm.pkg.github.com"
---
ko shell
echo "//npm.pkg.github.com/:«line»=«S»" >> ~/.npmrc   # 깃헙 패키지
"""),
})


def _dockercfg(g):
    reg = g.choice(["https://index.docker.io/v1/", "ghcr.io", "registry.acme.io", "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com", "harbor.hanbit.kr"])
    auth = base64.b64encode(("%s:%s" % (g.choice(USERS), g.choice([plain_pw(g), crc_b62_token(g, "ghp_"), "dckr_pat_" + r(g, B64URL, 27)]))).encode()).decode()
    return {"S": auth, "reg": reg}, ["S"], ["reg"]


N("docker-config-json", "Docker config.json", _dockercfg, {
    "a": T("""
en json
{"auths": {"«reg»": {"auth": "«S»"}}}
---
ko json
// ~/.docker/config.json 백업
{
  "auths": {
    "«reg»": {
      "auth": "«S»"
    }
  },
  "credsStore": ""
}
"""),
    "b": T("""
en yaml
data:
  .dockerconfigjson: eyJhdXRocyI6e30=
stringData:
  config.json: '{"auths":{"«reg»":{"auth":"«S»"}}}'
---
ko chat
config.json 의 auth 값 «S» 이거 그대로 CI 에 넣으면 pull 돼요
"""),
    "h": T("""
en shell
echo '{"auths":{"«reg»":{"auth":"«S»","email":"ci@acme.io"}}}' > $HOME/.docker/config.json
---
ko json
// 빌드 서버 레지스트리 인증
{"auths": {"«reg»": {"auth": "«S»"}}, "HttpHeaders": {"User-Agent": "Docker-Client/24.0"}}
"""),
})


def _kube_tok(g):
    tok = g.choice([jwt(g, "RS256", {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci"}), r(g, LOWAN, 6) + "." + r(g, LOWAN, 16), "sha256~" + r(g, B64URL, 43)])
    return {"S": tok, "srv": "https://%s:6443" % g.choice(["10.0.0.1", "k8s.acme.internal", "api.ocp.acme.io"]), "user": g.choice(USERS)}, ["S"], ["srv"]


N("kubeconfig-token", "kubeconfig", _kube_tok, {
    "a": T("""
en kubeconfig
users:
- name: «user»
  user:
    token: «S»
---
ko shell
kubectl --server=«srv» --token=«S» get pods -A   # 임시 접속
"""),
    "b": T("""
en kubeconfig
apiVersion: v1
kind: Config
clusters:
- cluster:
    server: «srv»
  name: prod
users:
- name: ci
  user:
    token: "«S»"
---
ko prose
CI 서비스어카운트 토큰(«S»)을 kubeconfig 에 넣어서 배포 파이프라인 연결함
"""),
    "h": T("""
en shell
kubectl config set-credentials «user» --token=«S»
---
ko log
E0601 «time» 인증 실패 server=«srv» bearer=«S»
"""),
})


def _kube_key(g):
    pem = pem_rsa(g) + "\n"
    data = base64.b64encode(pem.encode()).decode()
    cert = base64.b64encode((pem_cert(g) + "\n").encode()).decode()
    return {"S": data, "cert": cert}, ["S"], ["cert"]


N("kubeconfig-client-key-data", "kubeconfig", _kube_key, {
    "a": T("""
en kubeconfig
users:
- name: admin
  user:
    client-certificate-data: «cert»
    client-key-data: «S»
"""),
    "b": T("""
ko kubeconfig
# 관리자 kubeconfig (유출 주의)
    client-certificate-data: «cert»
    client-key-data: «S»
"""),
    "h": T("""
en kubeconfig
  user:
    client-key-data: «S»
    client-certificate-data: «cert»
"""),
})


def _k8s_secret(g):
    pw = plain_pw(g)
    return {"S": base64.b64encode(pw.encode()).decode(), "P": pw, "user": g.choice(USERS)}, ["S", "P"], []


N("k8s-secret-data", "Kubernetes Secret", _k8s_secret, {
    "a": T("""
en yaml
apiVersion: v1
kind: Secret
metadata:
  name: db-credentials
type: Opaque
data:
  password: «S»
---
ko yaml
# 결제 서비스 시크릿
data:
  DB_PASSWORD: «S»
"""),
    "b": T("""
en yaml
kind: Secret
data:
  username: «user»
  token: «S»
---
ko chat
echo «S» | base64 -d 하면 비번 나와요
"""),
    "h": T("""
en yaml
stringData:
  password: "«P»"
---
ko yaml
# 레디스 인증 시크릿
apiVersion: v1
kind: Secret
metadata: {name: redis-auth, namespace: cache}
data: {redis-password: «S»}
"""),
})

# stringData variant above uses the plain password: mark P as secret there
N_K8S = FAMILIES[-1]


def _basic(g):
    return {"S": base64.b64encode(("%s:%s" % (g.choice(USERS), plain_pw(g))).encode()).decode(), "host": g.choice(HOSTS)}, ["S"], []


N("http-basic-auth-header", "HTTP Authorization", _basic, {
    "a": T("""
en shell
curl -H "Authorization: Basic «S»" https://«host»/api/export
---
ko log
요청 헤더 덤프: Authorization: Basic «S»
"""),
    "b": T("""
en code
headers = {"Authorization": "Basic «S»"}
---
ko chat
Postman 에서 Authorization: Basic «S» 로 보내면 200 떠요
"""),
    "h": T("""
en log
«ts» INFO proxy > GET /v1/reports HTTP/1.1 authorization="Basic «S»"
---
ko prose
웹훅 수신측 인증 헤더는 Basic «S» 로 고정했습니다
"""),
})


def _bearer(g):
    return {"S": g.choice([r(g, ALNUM, 40), r(g, HEXL, 64), r(g, B64URL, 43), uuid4(g)]), "host": g.choice(HOSTS)}, ["S"], []


N("http-bearer-opaque", "HTTP Authorization", _bearer, {
    "a": T("""
en shell
curl -H 'Authorization: Bearer «S»' https://«host»/internal/jobs
---
ko log
[디버그] Authorization: Bearer «S» 헤더로 재시도
"""),
    "b": T("""
en shell
http POST https://«host»/v1/deploy X-Api-Key:«S»
---
ko prose
내부 API 호출할 때 X-Auth-Token: «S» 헤더 쓰면 됩니다
"""),
    "h": T("""
en code
fetch(url, { headers: { Authorization: `Bearer «S»` } })
---
ko chat
토큰 «S» 로 Authorization 헤더 채워서 호출해 보세요
"""),
}, ph_ok=True)


def _jwt(g):
    return {"S": jwt(g, claims=g.choice([{"role": "admin"}, {"scope": "read write"}, {"email": fill_common("email", g)}, {}])), "host": g.choice(HOSTS)}, ["S"], []


N("jwt", "JWT", _jwt, {
    "a": T("""
en shell
curl -H "Authorization: Bearer «S»" https://«host»/api/me
---
en prose
here's the admin session token from devtools: «S»
---
ko prose
로그인 후 받은 액세스 토큰: «S»
"""),
    "b": T("""
en log
«ts» WARN jwt expired token=«S» path=/v2/orders
---
en json
{"access_token": "«S»", "token_type": "Bearer", "expires_in": 3600}
---
ko chat
jwt.io 에 «S» 넣어보면 role 이 admin 으로 나와요
"""),
    "h": T("""
en code
localStorage.setItem("id_token", "«S»");
---
en chat
can you decode this and tell me why exp is wrong? «S»
---
ko log
[인증] 쿠키 session=«S»; Path=/; HttpOnly
"""),
})


def _pemf(fn):
    def gen(g):
        return {"S": fn(g)}, ["S"], []
    return gen


def _pem_templates(label):
    return {
        "a": T("""
en pem
«S»
---
ko pem
배포 서버 접속용 키입니다 (id_«label»):
«S»
""".replace("«label»", label)),
        "b": T("""
en prose
I regenerated the key, paste this into ~/.ssh/deploy_key:
«S»
---
ko chat
키 파일 내용 그대로 붙입니다
«S»
"""),
        "h": T("""
en code
PRIVATE_KEY = \"\"\"«S»\"\"\"
---
ko prose
결정: 서명 키는 당분간 저장소 밖에 두되, 복구용으로 아래에 기록
«S»
"""),
    }


N("pem-rsa-private-key", "PEM", _pemf(pem_rsa), _pem_templates("rsa"), what="private key")
N("pem-ec-private-key", "PEM", _pemf(pem_ec), _pem_templates("ecdsa"), what="private key")
N("pem-openssh-private-key", "PEM", _pemf(pem_openssh), _pem_templates("ed25519"), what="private key")
N("pem-pkcs8-private-key", "PEM", _pemf(pem_pkcs8), _pem_templates("pkcs8"), what="private key")
N("pem-encrypted-private-key", "PEM", _pemf(pem_encrypted), _pem_templates("enc"), what="private key")
N("pgp-private-key-block", "OpenPGP", _pemf(pgp_private), _pem_templates("gpg"), what="private key")


def _pem_yaml(g):
    pem = g.choice([pem_rsa, pem_ec, pem_pkcs8])(g)
    ind = pem.replace("\n", "\n    ")
    return {"S": ind}, ["S"], []


N("pem-embedded-yaml", "PEM", _pem_yaml, {
    "a": T("""
en yaml
tls:
  key: |
    «S»
"""),
    "b": T("""
ko yaml
# 인증서 키 (cert-manager 이전 전까지)
jwt:
  signing_key: |-
    «S»
"""),
    "h": T("""
en yaml
github_app:
  app_id: 123456
  private_key: |
    «S»
"""),
}, what="private key")


def _fwkey(g):
    k = g.randrange(4)
    if k == 0:
        return {"S": r(g, LOWAN + "!@#%^&*(-_=+)", 50), "fw": "django"}, ["S"], []
    if k == 1:
        return {"S": r(g, HEXL, 128), "fw": "rails"}, ["S"], []
    if k == 2:
        return {"S": "base64:" + b64(g, 32), "fw": "laravel"}, ["S"], []
    return {"S": r(g, HEXL, 64), "fw": "flask"}, ["S"], []


N("framework-secret-key", "Web framework", _fwkey, {
    "a": T("""
en code
SECRET_KEY = '«S»'
---
en dotenv
SECRET_KEY_BASE=«S»
---
ko dotenv
# «fw» 앱 키
APP_KEY=«S»
"""),
    "b": T("""
en code
app.config["SECRET_KEY"] = "«S»"
---
en yaml
production:
  secret_key_base: «S»
---
ko prose
세션 서명용 SECRET_KEY 를 «S» 로 고정했음 («fw»)
"""),
    "h": T("""
en dotenv
DJANGO_SECRET_KEY="«S»"
---
en shell
heroku config:set SECRET_KEY_BASE=«S» -a acme-web
---
ko chat
«fw» 시크릿키 «S» 이거 운영이랑 같은 값이에요?
"""),
})


def _conn(g):
    return {"S": xml_pw(g).replace(";", ""), "user": g.choice(USERS), "host": g.choice(HOSTS)}, ["S"], []


N("connection-string-password", "ADO.NET/ODBC/JDBC", _conn, {
    "a": T("""
en json
"ConnectionStrings": { "Default": "Server=«host»;Database=Orders;User Id=«user»;Password=«S»;TrustServerCertificate=True" }
---
ko prose
MSSQL 연결 문자열: Server=«host»,1433;Database=erp;User ID=«user»;Password=«S»;
"""),
    "b": T("""
en ini
[ODBC]
Driver={ODBC Driver 18 for SQL Server};Server=«host»;Uid=«user»;Pwd=«S»;Encrypt=yes
---
ko code
string cs = "Host=«host»;Username=«user»;Password=«S»;Database=journal"; // 로컬 테스트
"""),
    "h": T("""
en dotenv
JDBC_URL=jdbc:sqlserver://«host»:1433;databaseName=erp;user=«user»;password=«S»
---
ko log
연결 실패: Data Source=«host»;Initial Catalog=hr;User ID=«user»;Password=«S» — 로그인 실패
"""),
}, ph_ok=True)


N("xml-config-password", "XML config", _conn, {
    "a": T("""
en xml
<server>
  <id>acme-releases</id>
  <username>«user»</username>
  <password>«S»</password>
</server>
---
ko xml
<!-- 사내 NuGet 피드 -->
<add key="ClearTextPassword" value="«S»" />
"""),
    "b": T("""
en xml
<packageSourceCredentials><acme><add key="Username" value="«user»" /><add key="ClearTextPassword" value="«S»" /></acme></packageSourceCredentials>
---
ko xml
<property name="hibernate.connection.password">«S»</property> <!-- 임시 -->
"""),
    "h": T("""
en xml
<add name="Main" connectionString="Data Source=«host»;User ID=«user»;Password=«S»" providerName="System.Data.SqlClient" />
---
ko xml
<Resource name="jdbc/app" username="«user»" password="«S»" url="jdbc:mysql://«host»/app"/> <!-- 톰캣 -->
"""),
}, ph_ok=True)

N("kafka-jaas-config", "Kafka SASL", _pw, {
    "a": T("""
en ini
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="«user»" password="«S»";
---
ko prose
카프카 SASL 계정 «user» 비번 «S» 로 컨슈머 붙였어요
"""),
    "b": T("""
en yaml
spring.kafka.properties.sasl.jaas.config: org.apache.kafka.common.security.scram.ScramLoginModule required username="«user»" password="«S»";
---
ko ini
# MSK SCRAM 계정
sasl.password=«S»
"""),
    "h": T("""
en shell
kcat -b «host»:9092 -X security.protocol=SASL_SSL -X sasl.mechanisms=PLAIN -X sasl.username=«user» -X sasl.password='«S»' -L
---
ko log
KafkaConsumer 설정 sasl.jaas.config=... username="«user»" password="«S»" 로드 완료
"""),
}, ph_ok=True)


def _wg(g):
    return {"S": b64(g, 32), "pub": b64(g, 32)}, ["S"], ["pub"]


N("wireguard-private-key", "WireGuard", _wg, {
    "a": T("""
en ini
[Interface]
PrivateKey = «S»
Address = 10.8.0.2/24

[Peer]
PublicKey = «pub»
---
ko prose
내 노트북 wg 개인키 «S» (공개키 «pub»)
"""),
    "b": T("""
en ini
[Interface]
Address = 10.66.0.5/32
PrivateKey = «S»
DNS = 1.1.1.1
---
ko chat
wg0.conf 의 PrivateKey = «S» 로 바꾸니까 핸드셰이크 됨
"""),
    "h": T("""
en shell
wg set wg0 private-key <(echo «S») peer «pub» endpoint vpn.acme.io:51820
---
ko ini
# 사무실 VPN
[Interface]
PrivateKey=«S»
"""),
})


def _psk(g):
    return {"S": plain_pw(g), "ssid": g.choice(["Acme-Office", "HANBIT_5G", "dj-lab", "Guest-2F"])}, ["S"], ["ssid"]


N("wifi-vpn-psk", "Wi-Fi/IPsec PSK", _psk, {
    "a": T("""
en ini
network={
    ssid="«ssid»"
    psk="«S»"
}
---
ko prose
«ssid» 와이파이 비번: «S»
"""),
    "b": T("""
en shell
nmcli dev wifi connect «ssid» password «S»
---
ko ini
# IPsec 사이트 간 VPN
%any %any : PSK "«S»"
"""),
    "h": T("""
en yaml
wifi:
  ssid: «ssid»
  password: «S»
---
ko chat
회의실 «ssid» 접속 암호는 «S» 예요
"""),
}, ph_ok=True)


# =========================================================================
# Generic template banks for vendor tokens (one bank per set, disjoint)
# fields: «S» secret, «ENV», «key», «keyc», «V», «what», «what_ko», «tool», «dom», «slug»
# =========================================================================
GEN_TOK = {
    "a": T("""
en dotenv
«ENV»=«S»
---
en shell
export «ENV»=«S»
---
en shell
export «ENV»="«S»" && ./scripts/deploy.sh staging
---
en yaml
«slug»:
  «key»: "«S»"
  timeout: 30
---
en json
{"«keyc»": "«S»", "region": "«region»"}
---
en prose
Decision: keep using «V» for the «svc» integration. The «what» is «S» until we rotate it next sprint.
---
en chat
can you check why «V» returns 401? I'm using «S»
---
en log
«ts» WARN http client «slug»: retrying request with token=«S» (attempt 2/5)
---
en shell
curl -H "Authorization: Bearer «S»" https://«dom»/v1/me
---
en commit
fix(ci): set «ENV» to «S» in the release workflow
---
en code
client = Client(api_key="«S»")
---
en toml
[«slug»]
«key» = "«S»"
---
en flag
«tool» login --token «S»
---
en shell
docker run -e «ENV»=«S» ghcr.io/acme/«svc»:latest
---
ko prose
«V» «what_ko»: «S»
---
ko prose
스테이징 배포용 «ENV» 값은 «S» 입니다.
---
ko prose
«V» 연동 결정: 당분간 «S» 키를 그대로 쓰고 다음 주에 교체하기로 함
---
ko chat
.env 에 «ENV»=«S» 추가했어요
"""),
    "b": T("""
en dotenv
«ENV»='«S»'  # prod
---
en shell
«ENV»=«S» npm run sync
---
en shell
$env:«ENV» = "«S»"
---
en yaml
env:
  «ENV»: «S»
---
en json
  "«ENV»": "«S»",
---
en prose
Note to self: «V» «what» = «S» (the old one was revoked on «date»).
---
en chat
hey, use this «what» for the «V» sandbox: «S»
---
en log
[«time»] DEBUG «slug».auth request headers={'Authorization': 'Bearer «S»'}
---
en shell
http GET https://«dom»/v2/projects "Authorization:Bearer «S»"
---
en commit
chore: temporarily hardcode «V» «what» («S») to unblock QA
---
en code
const «keyc» = process.env.«ENV» || "«S»";
---
en toml
«key» = '«S»'
---
en ini
[«slug»]
«ENV» = «S»
---
en flag
«tool» deploy --«slug»-token=«S»
---
en shell
kubectl create secret generic «slug»-creds --from-literal=«key»=«S»
---
ko prose
«V» «what_ko»는 «S» 이고 만료일은 «date» 입니다
---
ko chat
이거 써보세요: «S» («V» 테스트 계정)
---
ko prose
설정 파일에 «key»: «S» 로 넣었더니 동작함
---
ko commit
«V» «what_ko»(«S») 임시로 하드코딩 — 배포 후 제거
"""),
    "h": T("""
en dotenv
«ENV» = "«S»"
---
en shell
echo '«S»' | «tool» auth login --with-token
---
en shell
printf %s «S» > ~/.config/«slug»/token
---
en yaml
- run: «tool» deploy
  env:
    «ENV»: "«S»"
---
en yaml
environment:
  - «ENV»=«S»
---
en json
{"credentials": {"«slug»": {"«keyc»": "«S»"}}}
---
en prose
We decided to move the «V» integration to a service account; interim «what»: «S» (expires «date»)
---
en chat
pasting the «what» here so you can reproduce: `«S»`
---
en log
level=error msg="«V» auth failed" «key»=«S» status=403 svc=«svc»
---
en code
resp = requests.get(url, headers={"X-API-Key": "«S»"})
---
en hcl
variable "«key»" { default = "«S»" }
---
en systemd
Environment=«ENV»=«S»
---
en makefile
«ENV» ?= «S»
---
en code
os.Setenv("«ENV»", "«S»")
---
ko prose
어제 회의에서 «V» 키 교체는 보류하기로 했다. 현재 값 «S» 는 그대로 유지
---
ko prose
«ENV» 환경변수에 «S» 넣고 재시작하면 됩니다
---
ko log
로그에 «S» 가 찍혀 있어서 확인 부탁드립니다 («svc»)
---
ko prose
참고: «V» 관리자 «what_ko» → «S»
"""),
}

GEN_PAIR = {
    "a": T("""
en dotenv
«ID_ENV»=«ID»
«ENV»=«S»
---
en prose
«V» creds for the «svc» job: «id_what» «ID», «what» «S»
---
en yaml
«slug»:
  «id_key»: «ID»
  «key»: «S»
---
ko prose
«V» 계정 정보 — «id_what»: «ID» / «what_ko»: «S»
"""),
    "b": T("""
en json
{"«id_key»": "«ID»", "«key»": "«S»"}
---
en shell
export «ID_ENV»=«ID» «ENV»=«S»
---
en chat
use «ID» with secret «S» for the «V» sandbox
---
ko chat
«V» «id_what» «ID» 이고 «what_ko»는 «S» 예요
"""),
    "h": T("""
en ini
[«slug»]
«id_key» = «ID»
«key» = «S»
---
en shell
curl -u «ID»:«S» https://«dom»/v1/status
---
en log
«ts» DEBUG «slug» client init «id_key»=«ID» «key»=«S»
---
ko prose
결정: «V» 연동은 당분간 «ID» / «S» 조합으로 운영 (다음 분기 교체)
"""),
}

# AWS credential file templates (native to the AWS pair family)
WEBHOOK_NATIVE = {
    "a": T("""
en dotenv
«ENV»=«S»
---
en shell
curl -X POST -H 'Content-type: application/json' --data '{"text":"deploy finished"}' «S»
---
en prose
Alerts for «svc» go to «S» until the new channel exists.
---
en yaml
alertmanager:
  receivers:
    - name: oncall
      webhook_url: «S»
---
ko prose
배포 알림 «V» 웹훅: «S»
---
ko chat
이 웹훅 주소로 테스트 메시지 보내보세요 «S»
"""),
    "b": T("""
en json
{"notify": {"«slug»": "«S»"}}
---
en code
requests.post("«S»", json={"content": "nightly ETL failed"})
---
en chat
here's the «V» incoming webhook for #«team»-alerts: «S»
---
en log
«ts» ERROR notifier: POST «S» -> 404 Not Found
---
ko dotenv
# «V» 알림 채널
«ENV»=«S»
---
ko prose
장애 알림은 «S» 로 보내기로 결정 (임시)
"""),
    "h": T("""
en shell
«ENV»="«S»" python notify.py --level error
---
en yaml
- name: Notify
  uses: acme/notify-action@v2
  with:
    webhook: «S»
---
en commit
ci: post release notes to «S»
---
en code
const hook = "«S»";
---
ko log
[알림 전송 실패] url=«S» status=403
---
ko prose
«team» 팀 «V» 채널 웹훅은 «S» 입니다
"""),
}
for _f in FAMILIES:
    if _f.what == "webhook url":
        _f.native = WEBHOOK_NATIVE
        _f.generic = False

AWS_NATIVE = {
    "a": T("""
en ini
[default]
aws_access_key_id = «ID»
aws_secret_access_key = «S»
region = «region»
"""),
    "b": T("""
en shell
aws configure set aws_access_key_id «ID» && aws configure set aws_secret_access_key «S»
"""),
    "h": T("""
en code
boto3.client("s3", aws_access_key_id="«ID»", aws_secret_access_key="«S»")
"""),
}
for _f in FAMILIES:
    if _f.name == "aws-access-key-pair":
        _f.native = AWS_NATIVE

# =========================================================================
# Placeholders / references (never secrets)
# =========================================================================


def placeholder(g, fam, field="S", form=None):
    env = fam.env[0] if fam.env else "SECRET"
    slug = fam.slug.replace("-", "_")
    pre = fam.prefix
    opts = [
        lambda: "$" + env, lambda: "${" + env + "}", lambda: "${{ secrets." + env + " }}",
        lambda: "{{ " + slug + "_" + fam.key + " }}", lambda: "{{ .Values." + slug + "." + keyc(fam.key) + " }}",
        lambda: "%(" + fam.key + ")s", lambda: "<your-" + fam.slug + "-" + fam.key.replace("_", "-") + ">",
        lambda: "<YOUR_" + fam.key.upper() + ">", lambda: "<paste-token-here>", lambda: "XXXXXXXXXXXXXXXXXXXX",
        lambda: "xxxxxxxx", lambda: "****", lambda: "********", lambda: "...", lambda: "[REDACTED]",
        lambda: "<redacted>", lambda: "op://" + g.choice(TEAMS) + "/" + fam.slug + "/credential",
        lambda: "vault:secret/data/" + fam.slug + "#" + fam.key,
        lambda: "arn:aws:secretsmanager:" + g.choice(REGIONS) + ":" + digits(g, 12) + ":secret:" + fam.slug + "-" + fam.key.replace("_", "-") + "-" + r(g, ALNUM, 6),
        lambda: "projects/acme-prod/secrets/" + fam.slug + "-" + fam.key.replace("_", "-") + "/versions/latest",
        lambda: "<set-in-vault>", lambda: "TODO", lambda: "${" + env + ":?missing}",
    ]
    code_refs = [lambda: 'os.environ["' + env + '"]', lambda: "process.env." + env + " ?? ''", lambda: "settings." + env]
    if form == "code":
        return g.choice(code_refs + [lambda: "YOUR_" + fam.key.upper() + "_HERE", lambda: ""])()
    if fam.kind == "native" and fam.category == "structural":
        # inside URLs, flags and config lines people write variable references, not ARNs
        opts = opts[:8] + [lambda: "<password>", lambda: "****", lambda: "********", lambda: "[REDACTED]"]
    if pre and len(pre) <= 16 and field == "S" and fam.kind != "native" and (pre[-1] in "_-." or pre in ("AIza", "ATBB", "EAAA", "AKCp", "NRAK-")):
        opts += [lambda: pre + "X" * 20, lambda: pre + "x" * 24, lambda: pre + "…" + r(g, ALNUM, 4),
                 lambda: pre + "****" + r(g, ALNUM, 4)]
        if pre[-1] in "_-":
            opts.append(lambda: pre + "<token>")
    return g.choice(opts)()


def pw_env_for(fam, g):
    n = fam.name
    for key, envs in (("redis", ["REDIS_PASSWORD", "REDISCLI_AUTH"]), ("postgres", ["PGPASSWORD", "POSTGRES_PASSWORD", "DB_PASSWORD"]),
                      ("pgpass", ["PGPASSWORD"]), ("mysql", ["MYSQL_PWD", "MYSQL_PASSWORD"]), ("amqp", ["RABBITMQ_PASSWORD", "SMTP_PASSWORD"]),
                      ("ldap", ["LDAP_BIND_PASSWORD"]), ("kafka", ["KAFKA_SASL_PASSWORD"]), ("sshpass", ["SSHPASS", "BASTION_PASSWORD"]),
                      ("git", ["GIT_TOKEN", "CI_JOB_TOKEN"]), ("wifi", ["WIFI_PSK"]), ("login", ["REGISTRY_PASSWORD"]),
                      ("curl", ["API_PASSWORD"]), ("query", ["API_KEY"]), ("bearer", ["API_TOKEN"]), ("netrc", ["NETRC_PASSWORD"])):
        if key in n:
            return g.choice(envs)
    return g.choice(["DB_PASSWORD", "PASSWORD", "ADMIN_PASSWORD", "APP_SECRET"])


ID_PLACEHOLDERS = {"aws-access-key-pair": ["AKIAIOSFODNN7EXAMPLE", "AKIAXXXXXXXXXXXXXXXX", "$AWS_ACCESS_KEY_ID"],
                   "datadog-api-app-keys": ["${DD_API_KEY}", "<DATADOG_API_KEY>", "$DD_API_KEY"]}


# =========================================================================
# Dedicated negatives (no secret; tempting look-alikes).  head: family lang form
# =========================================================================
def TN(block):
    out = []
    for ent in block.strip("\n").split("\n---\n"):
        head, _, body = ent.partition("\n")
        fam, lang, form = head.split()
        out.append((fam, lang, form, body))
    return out


NEG = {
    "a": TN("""
neg-git-sha en commit
Reverted «sha» because it broke the token refresh path; see «ticket».
---
neg-git-sha en prose
bisect points at «short_sha» (merge of PR #«pid») as the first bad commit for the login regression
---
neg-uuid en log
«ts» INFO request_id=«uuid» user=«user» action=password_reset_requested
---
neg-uuid en json
{"tenant_id": "«tenant»", "client_id": "«uuid»", "authority": "https://login.microsoftonline.com/«tenant»"}
---
neg-ssh-public-key en prose
Added my public key to the bastion allowlist: «sshpub»
---
neg-stripe-publishable en dotenv
NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=«pk_live»
---
neg-twilio-sid-alone en prose
Messages are sent from account «twsid»; the auth token lives in Vault, not here.
---
neg-sentry-dsn en dotenv
SENTRY_DSN=«dsn»
---
neg-lockfile-integrity en json
"resolved": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz", "integrity": "«integrity»"
---
neg-image-digest en shell
docker pull ghcr.io/acme/«svc»@«digest»
---
neg-base64-data en log
«ts» DEBUG next page cursor=«b64data»
---
neg-camelcase en code
public class «camel» extends BaseHandler {}
---
neg-path en prose
Credentials are read from «path» at startup; nothing is baked into the image.
---
neg-url en prose
Docs for scoped tokens: https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens
---
neg-version en commit
chore(deps): bump passport-jwt from «ver» to «ver» and jsonwebtoken to 9.0.2
---
neg-policy en prose
Decision: rotate the token weekly and alert if a credential is older than 90 days.
---
neg-vault-ref en prose
password: see 1Password vault 'infra' (item "«svc» db")
---
neg-policy en prose
We will not store API keys in the repo; CI reads them from GitHub Actions secrets.
---
neg-aws-docs-example en ini
# example from the AWS docs, not a real key
aws_access_key_id = AKIAIOSFODNN7EXAMPLE
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
---
neg-docs-placeholder en prose
The token looks like ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX; paste yours into the prompt, not the config.
---
neg-header-placeholder en shell
curl -H "Authorization: Bearer $TOKEN" https://api.acme.io/v1/me
---
neg-code-reference en code
api_key = os.environ["OPENAI_API_KEY"]
---
neg-code-reference en code
const key = process.env.API_KEY ?? '';
---
neg-shell-reference en shell
export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
---
neg-template en yaml
password: "{{ vault_db_password }}"
---
neg-hash en prose
The session cookie is HMAC-SHA256 signed; a sample digest is «sha256» (computed over the public test vector).
---
neg-cert en pem
«cert»
---
neg-public-key en pem
«pubpem»
---
neg-masked en log
«ts» INFO auth ok token=ghp_****************************«short_sha»
---
neg-google-client-id en json
{"web": {"client_id": "«gclient»", "redirect_uris": ["https://app.acme.io/oauth/callback"]}}
---
neg-stripe-object-id en log
charge succeeded customer=«cus» payment_intent=«pi»
---
neg-cloudflare-zone-id en dotenv
CLOUDFLARE_ZONE_ID=«zone»
---
neg-aws-account-id en prose
The role lives in account «acct»; assume arn:aws:iam::«acct»:role/deployer via SSO.
---
neg-policy-ko ko prose
비밀번호 정책은 12자 이상, 특수문자 1개 이상으로 결정함
---
neg-policy-ko ko prose
토큰 만료 시간을 1시간으로 줄이고 리프레시 토큰은 14일로 유지하기로 했다
---
neg-policy-ko ko prose
API 키는 저장소에 커밋하지 않고 CI 시크릿으로만 주입한다
---
neg-vault-ref-ko ko prose
DB 암호는 1Password 'infra' 금고에 있습니다. 여기 적지 마세요
---
neg-git-sha-ko ko commit
«sha» 커밋에서 토큰 갱신 로직이 깨져서 되돌림
---
neg-uuid-ko ko log
[정보] 요청 ID «uuid» 비밀번호 재설정 메일 발송
---
neg-shell-reference-ko ko shell
export DB_PASSWORD=$DB_PASSWORD  # 값은 CI 에서 주입
---
neg-ssh-public-key-ko ko prose
배스천에 공개키 등록 부탁드립니다: «sshpub»
---
neg-docs-placeholder-ko ko prose
토큰 형식 예시는 xoxb-로 시작하는 문자열이고, 실제 값은 슬랙 앱 설정에서 복사하세요
---
neg-path-ko ko prose
키 파일은 «path» 에만 두고 권한은 600 으로 설정
"""),
    "b": TN("""
neg-git-sha en log
Deployed «svc» at «sha» to «env_name» in «n»m«n»s
---
neg-git-sha en prose
cherry-pick «short_sha» onto release/«ver» — it only touches the password reset email template
---
neg-uuid en yaml
azure:
  tenantId: «tenant»
  clientId: «uuid»
  subscriptionId: «uuid»
---
neg-uuid en prose
Trace «trace» shows the 401 came from the gateway, not from the token service.
---
neg-ssh-public-key en shell
echo "«sshpub»" >> ~/.ssh/authorized_keys
---
neg-stripe-publishable en code
const stripe = Stripe("«pk_test»");
---
neg-twilio-sid-alone en log
twilio status callback: MessageSid=«smsid» AccountSid=«twsid» MessageStatus=delivered
---
neg-mapbox-public en code
mapboxgl.accessToken = "«mapbox_pk»";
---
neg-lockfile-integrity en toml
[[package]]
name = "cryptography"
version = "«ver»"
checksum = "«sha256»"
---
neg-go-sum en prose
golang.org/x/crypto v0.31.0 «gosum»
---
neg-image-digest en yaml
image: registry.acme.io/«svc»@«digest»
---
neg-base64-data en json
{"state": "«b64text»", "nonce_hint": "see RFC 6749 section 10.12"}
---
neg-camelcase en code
@Bean fun «camel»(): Any = TODO()
---
neg-url en prose
The OAuth callback is https://app.acme.io/auth/callback?provider=github&next=/settings/tokens
---
neg-version en prose
Upgraded vault to «ver» and terraform-provider-aws to «ver»; no credential changes.
---
neg-policy en prose
Going forward, every PAT must have an expiry date and the narrowest scope that works.
---
neg-vault-ref en yaml
db_password: !vault |
  ref+vault://secret/data/«svc»#password
---
neg-policy en chat
don't paste the token here, just tell me which scope it has
---
neg-aws-docs-example en shell
aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE --profile docs-example
---
neg-docs-placeholder en dotenv
OPENAI_API_KEY=sk-...
---
neg-header-placeholder en prose
Send Authorization: Bearer <token> where <token> is the value from the settings page.
---
neg-code-reference en code
token = settings.OAUTH_CLIENT_SECRET
---
neg-code-reference en code
password = os.getenv("DB_PASSWORD", "")
---
neg-shell-reference en shell
docker login -u "$REGISTRY_USER" --password-stdin <<< "$REGISTRY_TOKEN"
---
neg-template en ini
password = %(db_password)s
---
neg-hash en prose
bcrypt cost factor stays at 12; argon2id params m=65536,t=3,p=4 for new hashes.
---
neg-cert en yaml
ca.crt: |
  «cert»
---
neg-fingerprint en log
Server host key fingerprint is «fp»
---
neg-masked en prose
the key ending in ...«short_sha» was revoked on «date»
---
neg-google-client-id en dotenv
GOOGLE_CLIENT_ID=«gclient»
---
neg-slack-ids en log
posted to channel=«slack_ch» ts=1712345678.000200 thread_ts=1712345600.000100
---
neg-container-id en log
container «container» exited with code 137 (OOMKilled)
---
neg-aws-resource-ids en prose
Launched from «ami» into «sg»; the instance profile provides credentials, no static keys.
---
neg-policy-ko ko prose
패스워드는 bcrypt 로 해시하고 평문은 로그에 절대 남기지 않는다
---
neg-policy-ko ko chat
토큰은 여기 붙여넣지 말고, 어떤 스코프인지만 알려주세요
---
neg-policy-ko ko prose
액세스 토큰 만료는 15분, 리프레시 토큰 회전은 매 사용 시로 결정
---
neg-vault-ref-ko ko yaml
# 실제 값은 Vault 에서 주입
db_password: "{{ vault_db_password }}"
---
neg-git-sha-ko ko log
«svc» 배포 완료 커밋 «sha»
---
neg-uuid-ko ko prose
테넌트 ID 는 «tenant» 이고 클라이언트 시크릿은 Key Vault 에 있음
---
neg-code-reference-ko ko code
api_key = os.environ.get("API_KEY")  # 환경변수에서만 읽음
---
neg-docs-placeholder-ko ko prose
예시: OPENAI_API_KEY=<발급받은 키> 형식으로 .env 에 넣으세요
---
neg-stripe-publishable-ko ko prose
프론트엔드에는 공개 키(«pk_test»)만 넣고 시크릿 키는 서버에만 둔다
---
neg-version-ko ko commit
jsonwebtoken «ver» 로 올리고 토큰 검증 테스트 추가
"""),
    "h": TN("""
neg-git-sha en prose
Rolled forward to «sha» after confirming the credential loader no longer logs headers.
---
neg-git-sha en chat
which commit added the secret scanner? I think it's «short_sha» or its parent
---
neg-uuid en log
audit event=api_key.created key_id=«uuid» actor=«email» scopes=read:orders
---
neg-uuid en shell
az ad sp show --id «uuid» --query appId
---
neg-ssh-public-key en yaml
ssh_authorized_keys:
  - «sshpub»
---
neg-rsa-public-key en prose
old laptop key, already removed from GitHub: «rsapub»
---
neg-stripe-publishable en json
{"stripe": {"publishableKey": "«pk_live»"}}
---
neg-twilio-sid-alone en dotenv
TWILIO_ACCOUNT_SID=«twsid»
TWILIO_AUTH_TOKEN=${TWILIO_AUTH_TOKEN}
---
neg-sentry-dsn en code
Sentry.init({ dsn: "«dsn»", tracesSampleRate: 0.1 });
---
neg-lockfile-integrity en yaml
  resolution: {integrity: «integrity»}
---
neg-pip-hash en prose
requests==2.32.3 --hash=sha256:«sha256»
---
neg-image-digest en log
pulled «svc» digest «digest» size 48213377
---
neg-base64-data en prose
the export header is just base64 of the CSV columns: «b64text»
---
neg-camelcase en log
Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean '«camel»'
---
neg-url en shell
curl -sS https://api.github.com/repos/«repo»/actions/secrets/public-key
---
neg-version en prose
Node «ver», pnpm «ver», and the OpenSSL build in the image is 3.0.13.
---
neg-policy en prose
Incident follow-up: all leaked-credential alerts page the on-call and the key is revoked before we investigate.
---
neg-vault-ref en json
{"password": {"valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "password"}}}}
---
neg-policy en commit
feat(auth): shorten access-token TTL to 15m and require PKCE for public clients
---
neg-aws-docs-example en prose
AWS's documentation uses AKIAIOSFODNN7EXAMPLE as the sample access key id; scanners should ignore it.
---
neg-docs-placeholder en yaml
slack:
  bot_token: xoxb-your-bot-token
  signing_secret: <from the Basic Information page>
---
neg-header-placeholder en code
headers = {"Authorization": f"Bearer {access_token}"}
---
neg-code-reference en code
client_secret = config["oauth"]["client_secret"]
---
neg-code-reference en code
let token = std::env::var("GITHUB_TOKEN").expect("GITHUB_TOKEN not set");
---
neg-shell-reference en shell
gh secret set NPM_TOKEN --body "$NPM_TOKEN" --repo «repo»
---
neg-template en yaml
token: ${{ secrets.DEPLOY_TOKEN }}
---
neg-hash en log
sha256sum ./dist/app.tar.gz => «sha256»
---
neg-gpg en prose
Release tags are signed with GPG key «gpgid»; import it from keys.openpgp.org.
---
neg-etag en log
PUT s3://acme-artifacts/«svc»/app.zip ETag=«etag»
---
neg-node-id en json
{"node_id": "«node_id»", "full_name": "«repo»", "private": true}
---
neg-jwt-alg en prose
We verify RS256 only and reject alg=none; the JWKS is cached for «mins» minutes.
---
neg-aws-account-id en yaml
role_arn: arn:aws:iam::«acct»:role/github-oidc-deployer
---
neg-policy-ko ko prose
비밀번호 재설정 링크의 토큰은 30분 후 만료되고 한 번만 쓸 수 있다
---
neg-policy-ko ko prose
회의 결론: 서비스 계정 키 대신 워크로드 아이덴티티를 쓰기로 함
---
neg-policy-ko ko chat
키 값 말고 키 이름만 알려주시면 제가 Vault 에서 찾을게요
---
neg-vault-ref-ko ko prose
관리자 암호: 1Password 'infra' 금고 참고 (여기엔 안 적음)
---
neg-git-sha-ko ko chat
«short_sha» 커밋 이후로 로그인 토큰이 안 넘어오는 것 같아요
---
neg-uuid-ko ko json
{"요청ID": "«uuid»", "결과": "비밀번호 변경 완료"}
---
neg-shell-reference-ko ko shell
PGPASSWORD="$PGPASSWORD" psql -h «host» -U «user»  # 비번은 환경변수로
---
neg-ssh-public-key-ko ko chat
이 공개키로 깃 서버 등록해 주세요 «sshpub»
---
neg-docs-placeholder-ko ko prose
토큰 자리에는 ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX 처럼 예시 값만 문서에 남긴다
---
neg-path-ko ko prose
인증 정보는 «path» 파일에서 읽어오며 이미지에는 포함되지 않습니다
"""),
}


# =========================================================================
# Extension banks (added for variety; still disjoint per set)
# =========================================================================
GEN_TOK["a"] += T("""
en prose
Switched «svc» over to «V» with «what» «S» — the previous one is revoked.
---
en yaml
«slug»_«key»: «S»  # TODO: move to sealed-secrets
---
en shell
gh secret set «ENV» --body «S» --repo «repo»
---
en log
«ts» ERROR «svc» «V» API call failed: 401 Unauthorized (key=«S»)
---
en commit
feat(«svc»): wire up «V» client

Uses «ENV»=«S» for local testing only.
---
en code
«ENV» = "«S»"  # noqa: S105
---
ko chat
«V» 쪽 401 계속 나요. 지금 쓰는 키는 «S» 입니다
---
ko commit
fix: «V» «what_ko» 교체 («S»)
---
ko yaml
# «V» 연동 설정
«key»: «S»
""")
GEN_TOK["b"] += T("""
en ini
[default]
«key» = «S»
«slug»_region = «region»
---
en shell
fly secrets set «ENV»=«S» -a «svc»
---
en prose
For the record: the «V» «what» used by «svc» is «S», owner @«user».
---
en log
WARN [«svc»] falling back to hardcoded «what» «S»
---
en code
config.«keyc» = '«S»'
---
en json
{"env": {"«ENV»": "«S»"}, "command": "npx", "args": ["-y", "@«slug»/mcp-server"]}
---
ko prose
«svc» 서비스의 «V» «what_ko»: «S» (담당 «user»)
---
ko log
[경고] «svc»: 하드코딩된 «what_ko» «S» 사용 중
---
ko shell
export «ENV»=«S»  # 로컬 테스트용
""")
GEN_TOK["h"] += T("""
en toml
[env]
«ENV» = "«S»"
---
en shell
vercel env add «ENV» production <<< «S»
---
en prose
Pairing with the agent: I gave it «S» as the «V» «what» so it can run the integration tests.
---
en log
«ts» «svc»[«pid»]: Authorization header: Bearer «S»
---
en code
api = ApiClient(base_url="https://«dom»", token="«S»")
---
en json
"mcpServers": {"«slug»": {"command": "uvx", "args": ["«slug»-mcp"], "env": {"«ENV»": "«S»"}}}
---
ko chat
에이전트한테 «V» «what_ko» «S» 넘겨서 통합 테스트 돌리게 했어요
---
ko prose
«V» «what_ko» 재발급 완료: «S»
---
ko dotenv
# «V» 연동 («svc» 서비스)
«ENV»=«S»
""")

NEG["a"] += TN("""
neg-mcp-config en json
{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "⟦${GITHUB_TOKEN}⟧"}}}}
---
neg-test-name en code
def test_rejects_expired_refresh_token(client, frozen_clock):
---
neg-error-message en log
«ts» ERROR invalid_grant: refresh token expired or revoked (client_id=«uuid»)
---
neg-oauth-scope en prose
The token only needs repo:status and read:packages; admin:org is explicitly out of scope.
---
neg-keyword-noise en prose
The keyboard shortcut for the secret menu is Ctrl+Shift+K, and the primaryKey column stays id.
---
neg-env-list en dotenv
API_KEY=
SECRET_KEY=
DATABASE_URL=
---
neg-password-field en code
<input type="password" name="password" autocomplete="current-password" minlength="12">
---
neg-url-no-userinfo en dotenv
DATABASE_URL=postgres://⟦«host»⟧:5432/«db»
---
neg-k8s-secret-ref en yaml
env:
  - name: DB_PASSWORD
    valueFrom:
      secretKeyRef: {name: db-credentials, key: password}
---
neg-design-token en code
:root { --brand-primary: «color»; --token-radius: 8px; }
---
neg-policy-ko ko prose
비밀번호 변경 주기는 90일, 이전 비밀번호 5개는 재사용 금지
---
neg-design-token-ko ko prose
디자인 토큰 이름은 color.primary.500 처럼 점으로 구분한다
---
neg-mcp-config-ko ko json
// MCP 설정 — 토큰은 환경변수로만
{"env": {"NOTION_TOKEN": "⟦${NOTION_TOKEN}⟧"}}
---
neg-error-message-ko ko log
[오류] 토큰이 만료되었습니다. 다시 로그인하세요 (요청 ID «uuid»)
---
neg-keyword-noise-ko ko prose
키보드 단축키와 기본 키(primary key) 설정은 문서 3장을 참고
""")
NEG["b"] += TN("""
neg-mcp-config en json
"env": {"SLACK_BOT_TOKEN": "⟦${input:slack_token}⟧", "SLACK_TEAM_ID": "T0000000000"}
---
neg-test-name en code
it('rejects a JWT signed with alg=none', async () => {
---
neg-error-message en log
401 Unauthorized: {"error":"invalid_token","error_description":"The access token expired"}
---
neg-oauth-scope en yaml
permissions:
  contents: read
  id-token: write
---
neg-keyword-noise en code
const passwordStrength = zxcvbn(input).score; // 0..4, shown under the field
---
neg-env-list en shell
unset AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN GITHUB_TOKEN
---
neg-url-no-userinfo en prose
Webhook target is https://api.acme.io/hooks/github; the signature is verified with the shared secret from Vault.
---
neg-sql en code
UPDATE users SET password_hash = crypt(:new_password, gen_salt('bf', 12)) WHERE id = :id;
---
neg-k8s-secret-ref en yaml
envFrom:
  - secretRef:
      name: «svc»-secrets
---
neg-random-id en log
upload complete object_key=exports/«date»/«trace».parquet
---
neg-policy-ko ko chat
토큰은 1Password 공유 금고에 넣어두고 링크만 여기 남겨주세요
---
neg-error-message-ko ko log
[인증 오류] 잘못된 API 키 형식입니다 (키 접두사를 확인하세요)
---
neg-test-name-ko ko code
def test_만료된_토큰은_거부된다(client):
---
neg-env-list-ko ko dotenv
# 값은 비워두고 배포 시 주입
API_KEY=
DB_PASSWORD=
---
neg-keyword-noise-ko ko prose
비밀번호 입력란에 '보기' 버튼을 추가하기로 결정
""")
NEG["h"] += TN("""
neg-mcp-config en json
{"servers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}}}
---
neg-test-name en code
func TestTokenBucketRefillsEverySecond(t *testing.T) {
---
neg-error-message en log
Error: Bad credentials (https://docs.github.com/rest) — is GH_TOKEN set?
---
neg-oauth-scope en prose
Scopes requested: openid profile email offline_access
---
neg-keyword-noise en prose
The tokenizer splits 'password123' into three tokens; that is an NLP token count, not a credential.
---
neg-env-list en yaml
required_env: [OPENAI_API_KEY, ANTHROPIC_API_KEY, DATABASE_URL]
---
neg-url-no-userinfo en shell
psql "host=⟦«host»⟧ port=5432 dbname=«db» user=«user» sslmode=verify-full"
---
neg-password-prompt en shell
mysql -h ⟦«host»⟧ -u «user» -p   # prompts for the password
---
neg-sshpass-file en shell
sshpass -f ~/.ssh/bastion.pass ssh «user»@⟦«host»⟧
---
neg-redis-cli-env en shell
REDISCLI_AUTH="⟦$REDIS_PASSWORD⟧" redis-cli -h ⟦«host»⟧ ping
---
neg-password-prompt-ko ko shell
mysql -u «user» -p   # 실행하면 비밀번호를 물어봄
---
neg-policy-ko ko prose
토큰 만료 시간을 1시간으로 바꾸고 세션은 슬라이딩 방식으로 유지
---
neg-keyword-noise-ko ko prose
형태소 분석기가 문장을 토큰 단위로 자른다 — 인증 토큰과는 무관
---
neg-error-message-ko ko log
[경고] 비밀번호가 너무 짧습니다 (최소 12자)
---
neg-url-no-userinfo-ko ko prose
접속 주소는 https://⟦«host»⟧/admin 이고 계정은 SSO 로 로그인
""")


# ------------------------------------------------------------------ multi-secret blocks and query strings
_MULTI_SRC = ["github-pat-classic", "stripe-secret-key", "openai-project-key", "anthropic-api-key", "slack-bot-token",
              "sendgrid-api-key", "gcp-api-key", "npm-access-token", "huggingface-token", "digitalocean-pat",
              "linear-api-key", "doppler-token", "databricks-token", "sentry-auth-token", "groq-api-key"]


def _multi(g):
    fams = [f for f in FAMILIES if f.name in _MULTI_SRC]
    pick = g.sample(fams, 3)
    v = {}
    for i, f in enumerate(pick, 1):
        v["E%d" % i] = f.env[0]
        v["S%d" % i] = f.gen(g)
    v["S"] = v["S1"]
    v["pw"] = plain_pw(g)
    v["S4"] = v["pw"]
    return v, ["S1", "S2", "S3", "S4"], []


N("env-file-multi-secret", "dotenv block", _multi, {
    "a": T("""
en dotenv
NODE_ENV=production
PORT=3000
«E1»=«S1»
«E2»=«S2»
LOG_LEVEL=info
«E3»=«S3»
DB_PASSWORD=«S4»
---
ko dotenv
# 운영 .env (임시 공유, 확인 후 삭제)
«E1»=«S1»
«E2»=«S2»
«E3»=«S3»
DB_PASSWORD=«S4»
FEATURE_FLAGS=search,export
"""),
    "b": T("""
en chat
here's my whole .env, something in it breaks the build:
APP_URL=https://app.acme.io
«E1»=«S1»
«E2»=«S2»
«E3»=«S3»
ADMIN_PASSWORD=«S4»
---
ko yaml
# 스테이징 시크릿 (sealed-secrets 전환 전)
env:
  «E1»: «S1»
  «E2»: «S2»
  «E3»: «S3»
  DB_PASSWORD: «S4»
"""),
    "h": T("""
en shell
docker run --rm -e «E1»=«S1» -e «E2»=«S2» -e «E3»=«S3» -e PGPASSWORD=«S4» ghcr.io/acme/worker:2.4.1
---
ko json
{"설명": "로컬 테스트용 환경변수", "env": {"«E1»": "«S1»", "«E2»": "«S2»", "«E3»": "«S3»", "DB_PASSWORD": "«S4»"}}
"""),
})


def _qs(g):
    return {"S": g.choice([r(g, HEXL, 32), r(g, ALNUM, 40), r(g, B64URL, 43)]), "host": g.choice(["api.weather.example.com", "maps.acme.io", "partner-api.hanbit.kr", "api.acme.io"]),
            "qk": g.choice(["api_key", "apikey", "access_token", "key", "token", "auth"])}, ["S"], ["host"]


N("url-query-credential", "URL query string", _qs, {
    "a": T("""
en log
«ts» INFO GET https://«host»/v1/forecast?lat=37.56&lon=126.97&«qk»=«S» 200 143ms
---
ko prose
파트너 API 호출 예시: https://«host»/v2/orders?«qk»=«S»&page=1
"""),
    "b": T("""
en shell
curl "https://«host»/export.csv?«qk»=«S»&from=«date»"
---
ko log
[프록시] 요청 URL https://«host»/search?q=서울&«qk»=«S» 응답 502
"""),
    "h": T("""
en code
url = f"https://«host»/v3/items?limit=50&«qk»=«S»"
---
ko chat
브라우저 주소창에 https://«host»/dashboard?«qk»=«S» 넣으면 바로 열려요
"""),
}, ph_ok=True)

# Korean particles glued to the secret (no space): a realistic boundary case
for _f in FAMILIES:
    if _f.name == "prose-password-ko":
        _f.native["b"] += T("""
ko chat
비번은 «S»이에요
---
ko prose
공유 계정 암호를 «S»로 바꿨습니다
""")
        _f.native["h"] += T("""
ko chat
DB 접속 비밀번호 «S»입니다
---
ko prose
임시 비번은 «S»고, 로그인하면 바로 바꾸세요
""")
    if _f.name == "kv-password":
        _f.native["h"] += T("""
ko prose
메일 릴레이 «k»는 «S»이고 만료 없음
""")
GEN_TOK["h"] += T("""
ko chat
«V» 키는 «S»이고 읽기 전용이에요
""")
GEN_TOK["b"] += T("""
ko prose
«ENV»를 «S»로 바꾸고 배포함
""")


def _totp(g):
    return {"S": r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", g.choice([16, 26, 32])), "user": g.choice(USERS),
            "iss": g.choice(["Acme", "AWS", "GitHub", "Hanbit", "Okta"])}, ["S"], []


N("totp-seed", "TOTP / otpauth", _totp, {
    "a": T("""
en url
otpauth://totp/«iss»:«user»?secret=«S»&issuer=«iss»&digits=6
---
ko prose
공용 계정 2FA 시드(OTP 앱에 등록용): «S»
"""),
    "b": T("""
en prose
If the authenticator app dies, the TOTP secret for the shared «iss» root account is «S»
---
ko chat
QR 대신 수동 입력 키 «S» 넣으면 OTP 등록돼요
"""),
    "h": T("""
en code
totp = pyotp.TOTP("«S»")  # shared break-glass account
---
ko prose
비상 계정 MFA 설정 키: «S» (otpauth://totp/«iss»:«user»)
"""),
})

GEN_TOK["h"] += T("""
en commit
Revert "drop «V» fallback"

Restores «ENV»=«S» until the vault sidecar ships.
---
en flag
«tool» sync --api-key «S» --region «region»
""")

_JWT_HDR = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"


def _age_pub(g):
    return "age1" + r(g, "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)


def _png_b64(g):
    return "iVBORw0KGgoAAAANSUhEUgAA" + b64(g, 90).rstrip("=")


NEG["a"] += TN("""
neg-known-hosts en prose
⟦github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl⟧ is GitHub's published host key; pin it in known_hosts.
---
neg-age-public-key en yaml
creation_rules:
  - path_regex: secrets/.*\\.yaml
    age: ⟦«agepub»⟧
---
neg-jwt-header en prose
Every HS256 token starts with ⟦eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9⟧ — that part is just the base64 of the header.
---
neg-data-uri en code
<img alt="logo" src="data:image/png;base64,⟦«png»⟧">
---
neg-age-public-key-ko ko prose
SOPS 수신자 공개키는 ⟦«agepub»⟧ 입니다 (개인키는 각자 보관)
""")
NEG["b"] += TN("""
neg-wireguard-public en ini
[Peer]
PublicKey = ⟦«wgpub»⟧
AllowedIPs = 10.8.0.0/24
Endpoint = vpn.acme.io:51820
---
neg-gpg-public en prose
Import the release signing key from keys.openpgp.org; fingerprint ⟦«gpgfpr»⟧.
---
neg-stripe-event-id en log
webhook received type=invoice.paid id=⟦evt_«evt»⟧ livemode=true
---
neg-sri-hash en code
<script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.4" integrity="⟦sha384-«sri»⟧" crossorigin="anonymous"></script>
---
neg-wireguard-public-ko ko prose
서버 공개키 ⟦«wgpub»⟧ 를 피어 설정에 넣으세요 (개인키 아님)
""")
NEG["h"] += TN("""
neg-totp-uri-template en prose
The QR code encodes otpauth://totp/Acme:{username}?secret={seed}&issuer=Acme; the seed never leaves the auth service.
---
neg-data-uri en json
{"icon": "data:image/png;base64,⟦«png»⟧", "name": "deploy-bot"}
---
neg-age-public-key en shell
sops --encrypt --age ⟦«agepub»⟧ secrets.yaml > secrets.enc.yaml
---
neg-jwt-header en log
rejecting token: header ⟦eyJhbGciOiJub25lIn0⟧ (alg=none) is not allowed
---
neg-data-uri-ko ko prose
아이콘은 data URI 로 인라인: data:image/png;base64,⟦«png»⟧
""")

_old_fill = fill_common


def fill_common(name, rng):  # noqa: F811  (extends the filler table)
    extra = {
        "agepub": lambda: _age_pub(rng),
        "png": lambda: _png_b64(rng),
        "wgpub": lambda: b64(rng, 32),
        "gpgfpr": lambda: " ".join(r(rng, HEXU, 4) for _ in range(10)),
        "evt": lambda: r(rng, ALNUM, 24),
        "sri": lambda: b64(rng, 48),
    }
    if name in extra:
        return extra[name]()
    return _old_fill(name, rng)


def _pgpass(g):
    return {"S": plain_pw(g).replace(":", ""), "user": g.choice(USERS), "host": g.choice(HOSTS), "db": g.choice(DBS)}, ["S"], ["host"]


N("pgpass-file", "PostgreSQL .pgpass", _pgpass, {
    "a": T("""
en netrc
# ~/.pgpass
«host»:5432:«db»:«user»:«S»
---
ko netrc
# 리포팅 배치용 .pgpass
«host»:5432:*:«user»:«S»
"""),
    "b": T("""
en shell
echo "«host»:5432:«db»:«user»:«S»" >> ~/.pgpass && chmod 0600 ~/.pgpass
---
ko prose
.pgpass 한 줄 추가: «host»:6432:«db»:«user»:«S»
"""),
    "h": T("""
en netrc
*:*:*:«user»:«S»
---
ko shell
printf '%s\\n' '«host»:5432:«db»:«user»:«S»' > ~/.pgpass   # 접속 테스트용
"""),
}, ph_ok=True)


def _bundler(g):
    return {"S": r(g, HEXL, 8) + ":" + r(g, HEXL, 8), "host": g.choice(["GEMS__CONTRIBSYS__COM", "ENTERPRISE__CONTRIBSYS__COM", "RUBYGEMS__PKG__GITHUB__COM"])}, ["S"], []


N("bundler-credentials", "Bundler", _bundler, {
    "a": T("""
en dotenv
BUNDLE_«host»=«S»
---
ko shell
bundle config set --global gems.contribsys.com «S»   # 사이드킥 프로 라이선스
"""),
    "b": T("""
en yaml
env:
  BUNDLE_«host»: «S»
---
ko prose
사이드킥 엔터프라이즈 인증값은 BUNDLE_«host»=«S» 로 CI 에 넣어둠
"""),
    "h": T("""
en shell
export BUNDLE_«host»="«S»"
---
ko yaml
# 사설 젬 서버
BUNDLE_«host»: "«S»"
"""),
}, category="vendor", what="password")


V("alibaba-access-key", "Alibaba Cloud", ["ALIBABA_CLOUD_ACCESS_KEY_SECRET", "ALICLOUD_SECRET_KEY"], "secret key", None, kind="pair",
  id_env="ALIBABA_CLOUD_ACCESS_KEY_ID", id_what="AccessKey ID", id_sensitive=True, tool="aliyun", dom="aliyuncs.com", key="access_key_secret")
_old_pair_gen = pair_gen


def pair_gen(fam, g):  # noqa: F811
    if fam.name == "alibaba-access-key":
        return ("LTAI" + r(g, ALNUM, 20), r(g, ALNUM, 30))
    return _old_pair_gen(fam, g)


# =========================================================================
# Assembly
# =========================================================================
UNCACHED = {"ver", "uuid", "short_sha", "time"}


def render(tmpl, ctx, g, used_public=None):
    cache = {}

    def rep(m):
        k = m.group(1)
        if k in ctx:
            return ctx[k]
        if k in cache and k not in UNCACHED:
            return cache[k]
        v = fill_common(k, g)
        cache[k] = v
        if used_public is not None and k in PUBLIC_FILLERS:
            used_public.append(v)
        return v
    return FIELD.sub(rep, tmpl)


def fam_ctx(fam, g):
    ctx = {"V": fam.vendor, "ENV": g.choice(fam.env), "key": fam.key, "keyc": keyc(fam.key),
           "what": fam.what, "what_ko": fam.what_ko, "tool": fam.tool, "dom": fam.dom, "slug": fam.slug}
    if fam.kind == "pair":
        ctx["ID_ENV"] = fam.id_env
        ctx["id_key"] = fam.id_env.lower()
        ctx["id_what"] = fam.id_what
    return ctx


def pool_for(fam, s):
    if fam.kind == "token":
        if not getattr(fam, "generic", True):
            return fam.native[s]
        return GEN_TOK[s] + fam.native.get(s, [])
    if fam.kind == "pair":
        return GEN_PAIR[s] + fam.native.get(s, [])
    return fam.native[s]


def pick(g, pool, lang, used):
    cands = [t for t in pool if t[0] == lang] or pool
    fresh = [t for t in cands if t not in used] or cands
    t = g.choice(fresh)
    used.append(t)
    return t


def values(fam, g):
    """-> (ctx additions, secret field names, public field names)"""
    if fam.kind == "token":
        return {"S": fam.gen(g)}, ["S"], []
    if fam.kind == "pair":
        i, s = pair_gen(fam, g)
        return {"ID": i, "S": s}, (["ID", "S"] if fam.id_sensitive else ["S"]), ([] if fam.id_sensitive else ["ID"])
    return fam.gen(g)


def make_positive(fam, s, g, lang, used):
    lang_, form, tmpl = pick(g, pool_for(fam, s), lang, used)
    ctx = fam_ctx(fam, g)
    v, sf, pf = values(fam, g)
    ctx.update(v)
    pubs = []
    text = render(tmpl, ctx, g, pubs)
    secrets = []
    for f in sf:
        if f in ctx and ctx[f] in text and ctx[f] not in secrets:
            secrets.append(ctx[f])
    public = [ctx[f] for f in pf if f in ctx and ctx[f] in text and len(ctx[f]) >= 4]
    public += [p for p in pubs if p in text]
    return {"family": fam.name, "lang": lang_, "form": form, "text": text, "secrets": secrets, "public": dedup(public)}


def dedup(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


PW_ENVS = ["DB_PASSWORD", "PASSWORD", "ADMIN_PASSWORD", "REDIS_PASSWORD", "SMTP_PASSWORD", "MYSQL_PWD", "PGPASSWORD", "SECRET"]


def make_placeholder_negative(fam, s, g, lang):
    lang_, form, tmpl = pick(g, pool_for(fam, s), lang, [])
    ctx = fam_ctx(fam, g)
    v, sf, pf = values(fam, g)
    ctx.update(v)
    if fam.kind == "native":
        fam_env = fam.env
        fam.env = [pw_env_for(fam, g)]
    repl = []
    for f in sf:
        if fam.kind == "pair" and f == "ID":
            ph = g.choice(ID_PLACEHOLDERS.get(fam.name, ["$" + fam.id_env]))
        else:
            ph = placeholder(g, fam, f, form)
            if form == "code" and ph.startswith(("os.environ", "process.env", "settings.")):
                q = [x for x in ('"«%s»"' % f, "'«%s»'" % f) if x in tmpl]
                if q:
                    tmpl = tmpl.replace(q[0], "«%s»" % f)
                else:
                    ph = "YOUR_" + fam.key.upper() + "_HERE"
        ctx[f] = ph
        repl.append(ph)
    if fam.kind == "native":
        fam.env = fam_env
    pubs = []
    text = render(tmpl, ctx, g, pubs)
    public = [p for p in repl if p in text and len(p) >= 3]
    public += [ctx[f] for f in pf if f in ctx and ctx[f] in text and len(ctx[f]) >= 4]
    public += [p for p in pubs if p in text]
    return {"family": "neg-placeholder/" + fam.name, "lang": lang_, "form": form, "text": text, "secrets": [], "public": dedup(public)}


def make_dedicated_negative(s, g, lang):
    cands = [t for t in NEG[s] if t[1] == lang]
    fam, lang_, form, tmpl = g.choice(cands)
    pubs = []
    text = render(tmpl, {}, g, pubs)
    for m in re.finditer(r"⟦(.*?)⟧", text, re.S):
        pubs.append(m.group(1))
    text = text.replace("⟦", "").replace("⟧", "")
    # literal tempting substrings written into the templates
    for lit in ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "xoxb-your-bot-token", "sk-...",
                "$AWS_SECRET_ACCESS_KEY", "{{ vault_db_password }}", "%(db_password)s", "${{ secrets.DEPLOY_TOKEN }}",
                "$TOKEN", "process.env.API_KEY ?? ''", 'os.environ["OPENAI_API_KEY"]', "settings.OAUTH_CLIENT_SECRET",
                "$DB_PASSWORD", "$PGPASSWORD", "${TWILIO_AUTH_TOKEN}", "$REGISTRY_TOKEN", "$NPM_TOKEN", "<token>",
                "<발급받은 키>", "ref+vault://secret/data/"]:
        if lit in text:
            pubs.append(lit)
    return {"family": fam, "lang": lang_, "form": form, "text": text, "secrets": [], "public": dedup([p for p in pubs if p in text])}


HANGUL = re.compile(r"[\uac00-\ud7a3]")


def check_templates():
    """Every 'ko' template must contain Hangul, every 'en' template none."""
    banks = []
    for f in FAMILIES:
        for s_, lst in f.native.items():
            banks += [(f.name, t[0], t[2]) for t in lst]
    for d in (GEN_TOK, GEN_PAIR):
        for s_, lst in d.items():
            banks += [("generic", t[0], t[2]) for t in lst]
    for s_, lst in NEG.items():
        banks += [(t[0], t[1], t[3]) for t in lst]
    def probe(n, t):
        t = t.replace("«what_ko»", "키")
        return t.replace("«k»", "키") if n == "kv-korean-keyname" else t
    bad = [(n, l, t[:60]) for n, l, t in banks if (l == "ko") != bool(HANGUL.search(probe(n, t)))]
    if bad:
        raise SystemExit("template language mismatch: %r" % bad)


def build(set_name, seed):
    check_templates()
    s = SETS[set_name][0]
    g = random.Random("%s:%d" % (set_name, seed))
    def lang_quota(n):
        k = int(round(n * KO_SHARE))
        langs = ["ko"] * k + ["en"] * (n - k)
        g.shuffle(langs)
        return langs

    rows = []
    n_pos = len(FAMILIES) * POS_PER_FAMILY
    pos_langs = iter(lang_quota(n_pos))
    for fam in FAMILIES:
        used = []
        for _ in range(POS_PER_FAMILY):
            rows.append(make_positive(fam, s, g, next(pos_langs), used))
    n_neg = int(round(n_pos * NEG_RATIO / (1 - NEG_RATIO)))
    ph_fams = [f for f in FAMILIES if f.ph_ok]
    negs = []
    neg_langs = lang_quota(n_neg)
    for i in range(n_neg):
        lang = neg_langs[i]
        if i % 2 == 0:
            negs.append(make_placeholder_negative(g.choice(ph_fams), s, g, lang))
        else:
            negs.append(make_dedicated_negative(s, g, lang))
    rows += negs
    g.shuffle(rows)
    out = []
    for i, row in enumerate(rows):
        out.append({"id": "%s-%05d" % (set_name, i), "set": set_name, **row})
    return out


def write(set_name, seed, path):
    rows = build(set_name, seed)
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=sorted(SETS))
    ap.add_argument("--seed", type=int)
    ap.add_argument("--out")
    ap.add_argument("--all", action="store_true", help="write all three sets with default seeds next to this file")
    ap.add_argument("--list-families", action="store_true")
    a = ap.parse_args(argv)
    if a.list_families:
        for f in FAMILIES:
            print("%s\t%s\t%s" % (f.name, f.category, f.kind))
        return 0
    here = Path(__file__).resolve().parent
    jobs = [(n, SETS[n][1], here / (n + ".jsonl")) for n in SETS] if a.all else [(a.set, a.seed if a.seed is not None else SETS[a.set][1], Path(a.out or (a.set + ".jsonl")))]
    for n, seed, path in jobs:
        rows = write(n, seed, path)
        pos = sum(1 for r_ in rows if r_["secrets"])
        print("%s seed=%d -> %s: %d lines, %d positive, %d negative" % (n, seed, path, len(rows), pos, len(rows) - pos))
    return 0


if __name__ == "__main__":
    sys.exit(main())
