"""Shared value generators for corpora3 (NOT templates).

Everything here produces *values* (tokens, passwords, key blocks, public ids).
Sentence templates and negative builders live only in bank_a.py / bank_b.py.
"""
import base64
import hashlib
import random
import re
import string
import zlib

DIG = string.digits
UP = string.ascii_uppercase
LO = string.ascii_lowercase
ALNUM = DIG + UP + LO
B62 = DIG + UP + LO
HEX = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B32 = UP + "234567"
B64 = UP + LO + DIG + "+/"
URLSAFE = ALNUM + "-_"


def rs(r, n, alpha=ALNUM):
    return "".join(r.choice(alpha) for _ in range(n))


def b62(num, width):
    out = ""
    while num:
        num, d = divmod(num, 62)
        out = B62[d] + out
    return out.rjust(width, "0")


def crc_tail(body):
    return b62(zlib.crc32(body.encode()) & 0xFFFFFFFF, 6)


def b64bytes(r, n, urlsafe=False, pad=True):
    raw = bytes(r.getrandbits(8) for _ in range(n))
    s = base64.urlsafe_b64encode(raw).decode() if urlsafe else base64.b64encode(raw).decode()
    return s if pad else s.rstrip("=")


def uuid4(r):
    h = rs(r, 32, HEX)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def jwt(r, claims=None):
    hdr = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    if claims is None:
        claims = '{"sub":"%s","iat":%d,"role":"%s"}' % (rs(r, 10, LO + DIG), 1700000000 + r.randint(0, 9 ** 7), r.choice(["service_role", "admin", "deploy", "ci"]))
    pl = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
    sig = b64bytes(r, 32, urlsafe=True, pad=False)
    return f"{hdr}.{pl}.{sig}"


# ---------------------------------------------------------------- passwords
WORDS = ["Summer", "Winter", "Spring", "Autumn", "Dragon", "Monkey", "Tiger", "Seoul", "Busan",
         "Kimchi", "Hangang", "Jeju", "Coffee", "Falcon", "Phoenix", "Orange", "Purple", "Galaxy",
         "Rocket", "Sunshine", "Maple", "Panda", "Hanbit", "Mirae", "Gwanghwa", "Namsan", "Bukhan",
         "Sejong", "Pangyo", "Yeouido", "Mapo", "Songdo", "Blizzard", "Harbor", "Lantern", "Copper",
         "Walnut", "Cobalt", "Juniper", "Tangerine", "Sparrow", "Nimbus", "Quasar", "Pelican"]
LOWORDS = ["correct", "horse", "battery", "staple", "purple", "monkey", "dishwasher", "river",
           "ocean", "piano", "lemon", "tiger", "cactus", "violet", "gravel", "marble", "saturn",
           "banjo", "walrus", "pickle", "tundra", "sushi", "bibimbap", "tteok", "hanok", "noodle"]
SPEC_ALL = "+/=#?@!%$&*"
SPEC_SH = "+/=@%-_."   # safe unquoted in POSIX shell
SPEC_URL = "#?/@!%"


def _leet(w):
    return w.replace("a", "@").replace("o", "0").replace("e", "3").replace("s", "$") if w else w


def human_pw(r, specials):
    sp = lambda: r.choice(specials)
    k = r.randint(0, 6)
    if k == 0:
        return r.choice(WORDS) + str(r.randint(1980, 2026)) + sp()
    if k == 1:
        return r.choice(WORDS) + sp() + r.choice(WORDS).lower() + str(r.randint(1, 99))
    if k == 2:
        w = r.choice(WORDS)
        return w[0] + _leet(w[1:].lower()) + sp() + str(r.randint(10, 999)) if "$" in specials or True else w
    if k == 3:
        ws = r.sample(LOWORDS, 3)
        sep = r.choice(["-", ".", "_"] + list(specials[:2]))
        return sep.join(ws) + str(r.randint(1, 9)) + sp()
    if k == 4:
        return r.choice(["Admin", "Root", "Deploy", "Prod", "Db", "Svc", "Ops"]) + sp() + str(r.randint(2019, 2026)) + sp() + r.choice(WORDS)[:4]
    if k == 5:
        return r.choice(WORDS) + r.choice(WORDS) + sp() + sp() + str(r.randint(1, 9))
    return r.choice(["qwer", "asdf", "zxcv", "1q2w3e"]) + sp() + r.choice(WORDS) + str(r.randint(10, 99))


def random_pw(r, specials, n=None):
    n = n or r.randint(12, 24)
    alpha = ALNUM * 2 + specials
    while True:
        s = "".join(r.choice(alpha) for _ in range(n))
        if any(c in specials for c in s) and any(c.isdigit() for c in s) and s[0] not in "-=":
            return s


def fix_specials(s, specials):
    return "".join(c if (c.isalnum() or c in specials) else r_sub(c, specials) for c in s)


def r_sub(c, specials):
    return specials[ord(c) % len(specials)]


def pw(r, specials=SPEC_ALL):
    s = human_pw(r, specials) if r.random() < 0.5 else random_pw(r, specials)
    s = fix_specials(s, specials)
    if not any(c in specials for c in s):
        s += specials[0]
    return s


def pw_url(r):
    """password containing unencoded URL delimiters the way people type them"""
    base = pw(r, "!@#%?/")
    if not any(c in base for c in "#?/@"):
        base = base[:3] + r.choice("#?/@") + base[3:]
    return base


def pct(s):
    out = ""
    for c in s:
        out += c if (c.isalnum() or c in "-._~") else "%%%02X" % ord(c)
    return out


# ---------------------------------------------------------------- keys
def _der_prefix(kind, n):
    if kind == "rsa":
        return bytes.fromhex("308204a40201000282010100")
    if kind == "ec":
        return bytes.fromhex("307702010104")
    if kind == "pkcs8":
        return bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8")
    if kind == "enc":
        return bytes.fromhex("30820526305006092a864886f70d01050d3043")
    if kind == "dsa":
        return bytes.fromhex("308201bb02010002818100")
    return b""


def pem_block(r, kind):
    """returns (block_text, body) where body is the base64 text between the armor lines."""
    labels = {"rsa": "RSA PRIVATE KEY", "ec": "EC PRIVATE KEY", "pkcs8": "PRIVATE KEY",
              "enc": "ENCRYPTED PRIVATE KEY", "dsa": "DSA PRIVATE KEY"}
    sizes = {"rsa": 1190, "ec": 121, "pkcs8": 1218, "enc": 1322, "dsa": 447}
    n = sizes[kind] - r.randint(0, 3)
    raw = _der_prefix(kind, n) + bytes(r.getrandbits(8) for _ in range(n - len(_der_prefix(kind, n))))
    b = base64.b64encode(raw).decode()
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    body = "\n".join(lines)
    lab = labels[kind]
    return f"-----BEGIN {lab}-----\n{body}\n-----END {lab}-----", body


def openssh_block(r):
    raw = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
    raw += bytes(r.getrandbits(8) for _ in range(290))
    b = base64.b64encode(raw).decode()
    body = "\n".join(b[i:i + 70] for i in range(0, len(b), 70))
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----", body


def crc24(data):
    crc = 0xB704CE
    for byte in data:
        crc ^= byte << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def pgp_block(r):
    raw = bytes([0x95, 0x03, 0xc6]) + bytes(r.getrandbits(8) for _ in range(r.randint(700, 900)))
    b = base64.b64encode(raw).decode()
    ck = "=" + base64.b64encode(crc24(raw).to_bytes(3, "big")).decode()
    body = "\n".join([b[i:i + 64] for i in range(0, len(b), 64)] + [ck])
    return ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "\n-----END PGP PRIVATE KEY BLOCK-----"), body


def cert_block(r):
    raw = bytes.fromhex("308203") + bytes(r.getrandbits(8) for _ in range(600))
    b = base64.b64encode(raw).decode()
    body = "\n".join(b[i:i + 64] for i in range(0, len(b), 64))
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----", body


def pubkey_block(r):
    raw = bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100") + bytes(r.getrandbits(8) for _ in range(260))
    b = base64.b64encode(raw).decode()
    body = "\n".join(b[i:i + 64] for i in range(0, len(b), 64))
    return f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----", body


def ssh_pub(r):
    if r.random() < 0.5:
        raw = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + bytes(r.getrandbits(8) for _ in range(32))
        return "ssh-ed25519 " + base64.b64encode(raw).decode()
    raw = b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00" + bytes(r.getrandbits(8) for _ in range(256))
    return "ssh-rsa " + base64.b64encode(raw).decode()


# ---------------------------------------------------------------- vendor tokens
def g_gh(prefix):
    def g(r):
        b = rs(r, 30)
        return prefix + b + crc_tail(b)
    return g


def g_ghfine(r):
    return "github_pat_" + rs(r, 22) + "_" + rs(r, 59)


def g_npm(r):
    b = rs(r, 30)
    return "npm_" + b + crc_tail(b)


def fixed(prefix, n, alpha=ALNUM, suffix=""):
    return lambda r: prefix + rs(r, n, alpha) + suffix


def g_aws_id(r, pre="AKIA"):
    return pre + rs(r, 16, B32)


def g_aws_secret(r):
    return rs(r, 40, ALNUM + "+/")


def g_slack_bot(r):
    return "xoxb-%d-%d-%s" % (r.randint(10 ** 10, 10 ** 12), r.randint(10 ** 11, 10 ** 13), rs(r, 24))


def g_slack_user(r):
    return "xoxp-%d-%d-%d-%s" % (r.randint(10 ** 10, 10 ** 12), r.randint(10 ** 10, 10 ** 12), r.randint(10 ** 11, 10 ** 13), rs(r, 32, HEX))


def g_slack_app(r):
    return "xapp-1-A%s-%d-%s" % (rs(r, 10, UP + DIG), r.randint(10 ** 12, 10 ** 13), rs(r, 64, HEX))


def g_slack_hook(r):
    path = "T%s/B%s/%s" % (rs(r, 8, UP + DIG), rs(r, 10, UP + DIG), rs(r, 24))
    return "https://hooks.slack.com/services/" + path, path


def g_discord_bot(r):
    uid = str(r.randint(10 ** 17, 10 ** 18))
    return base64.b64encode(uid.encode()).decode().rstrip("=") + "." + rs(r, 6, URLSAFE) + "." + rs(r, 38, URLSAFE)


def g_discord_hook(r):
    path = "%d/%s" % (r.randint(10 ** 17, 10 ** 18), rs(r, 68, URLSAFE))
    return "https://discord.com/api/webhooks/" + path, path


def g_teams_hook(r):
    path = "%s@%s/IncomingWebhook/%s/%s" % (uuid4(r), uuid4(r), rs(r, 32, HEX), uuid4(r))
    org = r.choice(["contoso", "acmecorp", "hanbit", "northwind"])
    return f"https://{org}.webhook.office.com/webhookb2/" + path, path


def g_telegram(r):
    return "%d:AA%s" % (r.randint(10 ** 8, 10 ** 10), rs(r, 33, URLSAFE))


def g_stripe_sk(r):
    return "sk_live_" + rs(r, r.choice([24, 99]))


def g_stripe_rk(r):
    return "rk_live_" + rs(r, r.choice([24, 99]))


def g_sendgrid(r):
    return "SG." + rs(r, 22, URLSAFE) + "." + rs(r, 43, URLSAFE)


def g_mailchimp(r):
    return rs(r, 32, HEX) + "-us" + str(r.randint(1, 21))


def g_pypi(r):
    return "pypi-AgEIcHlwaS5vcmc" + rs(r, r.randint(120, 160), URLSAFE)


def g_openai_legacy(r):
    return "sk-" + rs(r, 20) + "T3BlbkFJ" + rs(r, 20)


def g_openai_proj(r):
    return "sk-proj-" + rs(r, 74, URLSAFE) + "T3BlbkFJ" + rs(r, 74, URLSAFE)


def g_anthropic(r):
    return "sk-ant-api03-" + rs(r, 93, URLSAFE) + "AA"


def g_azure_storage(r):
    return b64bytes(r, 64)


def g_azure_ad_secret(r):
    return rs(r, 3) + "8Q~" + rs(r, 34, ALNUM + "~._-")


def g_shopify(pre):
    return lambda r: pre + rs(r, 32, HEX)


def g_dt(r):
    return "dt0c01." + rs(r, 24, UP + DIG) + "." + rs(r, 64, UP + DIG)


def g_postman(r):
    return "PMAK-" + rs(r, 24, HEX) + "-" + rs(r, 34, HEX)


def g_airtable(r):
    return "pat" + rs(r, 14) + "." + rs(r, 64, HEX)


def g_tfc(r):
    return rs(r, 14) + ".atlasv1." + rs(r, 67)


def g_vault(r):
    return "hvs." + rs(r, 24) if r.random() < 0.5 else "hvs.CAESI" + rs(r, 86, URLSAFE)


def g_age(r):
    return "AGE-SECRET-KEY-1" + rs(r, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper())


def g_square(r):
    return "EAAA" + rs(r, 60, URLSAFE)


def g_braintree(r):
    return "access_token$production$" + rs(r, 16, LO + DIG) + "$" + rs(r, 32, HEX)


def g_twitter(r):
    return "AAAAAAAAAAAAAAAAAAAAA" + rs(r, 25) + "%3D" + rs(r, 50)


def g_databricks(r):
    return "dapi" + rs(r, 32, HEX)


def g_grafana_sa(r):
    return "glsa_" + rs(r, 32) + "_" + rs(r, 8, HEX)


def g_grafana_cloud(r):
    return "glc_" + base64.b64encode(('{"o":"%d","n":"stack-%d-hm-read","k":"%s","m":{"r":"prod-ap-northeast-0"}}' % (r.randint(10 ** 5, 10 ** 6), r.randint(10 ** 5, 10 ** 6), rs(r, 24))).encode()).decode()


def g_telnyx(r):
    return "KEY" + rs(r, 32, HEXU + HEX) + "_" + rs(r, 22)


def g_gcp_key(r):
    return "AIza" + rs(r, 35, URLSAFE)


def g_docker_pat(r):
    return "dckr_pat_" + rs(r, 27, URLSAFE)


def g_alibaba_id(r):
    return "LTAI" + rs(r, 20)


def g_tencent_id(r):
    return "AKID" + rs(r, 32)


def g_jenkins(r):
    return "11" + rs(r, 32, HEX)


def g_okta(r):
    return "00" + rs(r, 40, URLSAFE)


def g_doppler(r):
    return "dp.pt." + rs(r, 43)


def g_dropbox(r):
    return "sl." + rs(r, 135, URLSAFE)


def g_atlassian(r):
    return "ATATT3xFfGF0" + rs(r, 170, URLSAFE) + "=" + rs(r, 8, HEXU)


def g_flutterwave(r):
    return "FLWSECK-" + rs(r, 32, HEX) + "-X"


def g_planetscale_pw(r):
    return "pscale_pw_" + rs(r, 43, URLSAFE)


def g_supabase_secret(r):
    return "sb_secret_" + rs(r, 22, URLSAFE) + "_" + rs(r, 8, URLSAFE)


def g_neon_pw(r):
    return "npg_" + rs(r, 12)


def g_hf(r):
    return "hf_" + rs(r, 34, UP + LO)


def g_gitlab_rr(r):
    return "GR1348941" + rs(r, 20, URLSAFE)


def g_newrelic(r):
    return "NRAK-" + rs(r, 27, UP + DIG)


def g_sentry_user(r):
    return "sntryu_" + rs(r, 64, HEX)


def g_sentry_org(r):
    payload = '{"iat":%d.0,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"%s"}' % (1700000000 + r.randint(0, 10 ** 7), r.choice(["acme", "hanbit-labs", "northwind"]))
    return "sntrys_" + base64.b64encode(payload.encode()).decode().rstrip("=") + "_" + rs(r, 43, URLSAFE)


def g_fly(r):
    t = "fm2_" + rs(r, 180, URLSAFE + "+/") + "=="
    return "FlyV1 " + t, t


def g_jfrog(r):
    return "AKCp" + rs(r, 69)


def g_linear(r):
    return "lin_api_" + rs(r, 40)


def g_notion(r):
    return "ntn_" + rs(r, 11, DIG) + rs(r, 35)


def g_mapbox_sk(r):
    return "sk.eyJ1Ijoi" + rs(r, 40, URLSAFE) + "." + rs(r, 22, URLSAFE)


def g_easypost(r):
    return "EZAK" + rs(r, 54, HEX)


def g_pulumi(r):
    return "pul-" + rs(r, 40, HEX)


def g_prefect(r):
    return "pnu_" + rs(r, 36)


def g_scalingo(r):
    return "tk-us-" + rs(r, 48, URLSAFE)


def g_cloudflare_tok(r):
    return rs(r, 40, URLSAFE)


def g_heroku(r):
    return "HRKU-AA" + rs(r, 58, URLSAFE)


def g_gcp_oauth_secret(r):
    return "GOCSPX-" + rs(r, 28, URLSAFE)


def g_nuget(r):
    return "oy2" + rs(r, 43, LO + DIG)


def g_rubygems(r):
    return "rubygems_" + rs(r, 48, HEX)


def g_clojars(r):
    return "CLOJARS_" + rs(r, 60, LO + DIG)


def g_ms_teams_unused(r):
    return ""


def g_paystack(r):
    return "sk_live_" + rs(r, 40, HEX)


def g_razorpay_secret(r):
    return rs(r, 24)


def g_upstash(r):
    return "A" + rs(r, 4) + "AAIjcDE" + rs(r, 56, URLSAFE)


def g_mongo_atlas_api_priv(r):
    return uuid4(r)


def g_datadog_api(r):
    return rs(r, 32, HEX)


def g_datadog_app(r):
    return rs(r, 40, HEX)


def g_cohere(r):
    return rs(r, 40)


def g_mistral(r):
    return rs(r, 32)


# (family, label_en, label_ko, env names, generator)  generator -> str or (display, secret)
VENDORS = [
    ("github-pat-classic", "GitHub personal access token", "깃허브 개인 액세스 토큰", ["GITHUB_TOKEN", "GH_TOKEN"], g_gh("ghp_")),
    ("github-pat-fine", "GitHub fine-grained token", "깃허브 fine-grained 토큰", ["GITHUB_PAT", "GH_PAT"], g_ghfine),
    ("github-oauth", "GitHub OAuth token", "깃허브 OAuth 토큰", ["GITHUB_OAUTH_TOKEN"], g_gh("gho_")),
    ("github-app-user", "GitHub App user-to-server token", "깃허브 앱 사용자 토큰", ["GH_APP_USER_TOKEN"], g_gh("ghu_")),
    ("github-app-install", "GitHub App installation token", "깃허브 앱 설치 토큰", ["GH_INSTALL_TOKEN"], g_gh("ghs_")),
    ("github-refresh", "GitHub refresh token", "깃허브 리프레시 토큰", ["GH_REFRESH_TOKEN"], g_gh("ghr_")),
    ("gitlab-pat", "GitLab personal access token", "깃랩 개인 토큰", ["GITLAB_TOKEN", "CI_JOB_PAT"], fixed("glpat-", 20, URLSAFE)),
    ("gitlab-runner", "GitLab runner authentication token", "깃랩 러너 토큰", ["RUNNER_TOKEN"], fixed("glrt-", 20, URLSAFE)),
    ("gitlab-runner-reg", "GitLab runner registration token", "깃랩 러너 등록 토큰", ["REGISTRATION_TOKEN"], g_gitlab_rr),
    ("gitlab-deploy", "GitLab deploy token", "깃랩 배포 토큰", ["GITLAB_DEPLOY_TOKEN"], fixed("gldt-", 20, URLSAFE)),
    ("gitlab-trigger", "GitLab pipeline trigger token", "깃랩 트리거 토큰", ["TRIGGER_TOKEN"], fixed("glptt-", 40, HEX)),
    ("bitbucket-app-pw", "Bitbucket app password", "비트버킷 앱 비밀번호", ["BITBUCKET_APP_PASSWORD"], fixed("ATBB", 32, ALNUM)),
    ("atlassian-api", "Atlassian API token", "아틀라시안 API 토큰", ["JIRA_API_TOKEN", "CONFLUENCE_TOKEN"], g_atlassian),
    ("circleci-pat", "CircleCI personal API token", "CircleCI 토큰", ["CIRCLECI_TOKEN"], lambda r: "CCIPAT_" + rs(r, 22) + "_" + rs(r, 40, HEX)),
    ("buildkite", "Buildkite API access token", "빌드카이트 토큰", ["BUILDKITE_API_TOKEN"], fixed("bkua_", 40, HEX)),
    ("jenkins-api", "Jenkins API token", "젠킨스 API 토큰", ["JENKINS_API_TOKEN"], g_jenkins),
    ("npm-token", "npm access token", "npm 토큰", ["NPM_TOKEN", "NODE_AUTH_TOKEN"], g_npm),
    ("pypi-token", "PyPI API token", "PyPI 업로드 토큰", ["PYPI_TOKEN", "TWINE_PASSWORD"], g_pypi),
    ("rubygems", "RubyGems API key", "RubyGems 키", ["GEM_HOST_API_KEY"], g_rubygems),
    ("nuget", "NuGet API key", "NuGet 키", ["NUGET_API_KEY"], g_nuget),
    ("dockerhub-pat", "Docker Hub access token", "도커허브 토큰", ["DOCKERHUB_TOKEN", "DOCKER_PASSWORD"], g_docker_pat),
    ("clojars", "Clojars deploy token", "Clojars 토큰", ["CLOJARS_PASSWORD"], g_clojars),
    ("jfrog-api", "JFrog Artifactory API key", "아티팩토리 API 키", ["ARTIFACTORY_API_KEY"], g_jfrog),
    ("sonarqube", "SonarQube user token", "소나큐브 토큰", ["SONAR_TOKEN"], fixed("squ_", 40, HEX)),
    ("aws-session-token-alone", "AWS session token", "AWS 세션 토큰", ["AWS_SESSION_TOKEN"], lambda r: "FwoGZXIvYXdzE" + rs(r, 300, ALNUM + "+/") + "=="),
    ("gcp-api-key", "Google API key", "구글 API 키", ["GOOGLE_API_KEY", "GEMINI_API_KEY"], g_gcp_key),
    ("gcp-oauth-secret", "Google OAuth client secret", "구글 OAuth 클라이언트 시크릿", ["GOOGLE_CLIENT_SECRET"], g_gcp_oauth_secret),
    ("azure-storage-key", "Azure storage account key", "애저 스토리지 키", ["AZURE_STORAGE_KEY"], g_azure_storage),
    ("azure-ad-secret", "Azure AD client secret", "애저 AD 클라이언트 시크릿", ["AZURE_CLIENT_SECRET"], g_azure_ad_secret),
    ("digitalocean-pat", "DigitalOcean personal access token", "디지털오션 토큰", ["DIGITALOCEAN_TOKEN", "DO_TOKEN"], fixed("dop_v1_", 64, HEX)),
    ("digitalocean-oauth", "DigitalOcean OAuth token", "디지털오션 OAuth 토큰", ["DO_OAUTH_TOKEN"], fixed("doo_v1_", 64, HEX)),
    ("heroku-api", "Heroku API key", "헤로쿠 API 키", ["HEROKU_API_KEY"], g_heroku),
    ("cloudflare-api-token", "Cloudflare API token", "클라우드플레어 API 토큰", ["CLOUDFLARE_API_TOKEN", "CF_API_TOKEN"], g_cloudflare_tok),
    ("cloudflare-global-key", "Cloudflare global API key", "클라우드플레어 글로벌 키", ["CF_API_KEY"], fixed("", 37, HEX)),
    ("flyio", "Fly.io access token", "Fly.io 토큰", ["FLY_API_TOKEN"], g_fly),
    ("vault-token", "HashiCorp Vault token", "볼트 토큰", ["VAULT_TOKEN"], g_vault),
    ("terraform-cloud", "Terraform Cloud API token", "테라폼 클라우드 토큰", ["TF_TOKEN_app_terraform_io", "TFE_TOKEN"], g_tfc),
    ("pulumi", "Pulumi access token", "풀루미 토큰", ["PULUMI_ACCESS_TOKEN"], g_pulumi),
    ("doppler", "Doppler service token", "도플러 토큰", ["DOPPLER_TOKEN"], g_doppler),
    ("age-secret-key", "age secret key", "age 비밀 키", ["SOPS_AGE_KEY"], g_age),
    ("slack-bot", "Slack bot token", "슬랙 봇 토큰", ["SLACK_BOT_TOKEN"], g_slack_bot),
    ("slack-user", "Slack user token", "슬랙 유저 토큰", ["SLACK_USER_TOKEN"], g_slack_user),
    ("slack-app", "Slack app-level token", "슬랙 앱 토큰", ["SLACK_APP_TOKEN"], g_slack_app),
    ("slack-webhook", "Slack incoming webhook", "슬랙 웹훅", ["SLACK_WEBHOOK_URL"], g_slack_hook),
    ("discord-bot", "Discord bot token", "디스코드 봇 토큰", ["DISCORD_TOKEN"], g_discord_bot),
    ("discord-webhook", "Discord webhook", "디스코드 웹훅", ["DISCORD_WEBHOOK"], g_discord_hook),
    ("teams-webhook", "Microsoft Teams webhook", "팀즈 웹훅", ["TEAMS_WEBHOOK_URL"], g_teams_hook),
    ("telegram-bot", "Telegram bot token", "텔레그램 봇 토큰", ["TELEGRAM_BOT_TOKEN", "TG_TOKEN"], g_telegram),
    ("twitter-bearer", "X/Twitter bearer token", "트위터 베어러 토큰", ["TWITTER_BEARER_TOKEN"], g_twitter),
    ("stripe-secret", "Stripe secret key", "스트라이프 시크릿 키", ["STRIPE_SECRET_KEY", "STRIPE_API_KEY"], g_stripe_sk),
    ("stripe-restricted", "Stripe restricted key", "스트라이프 제한 키", ["STRIPE_RESTRICTED_KEY"], g_stripe_rk),
    ("stripe-webhook-secret", "Stripe webhook signing secret", "스트라이프 웹훅 서명 시크릿", ["STRIPE_WEBHOOK_SECRET"], fixed("whsec_", 32)),
    ("square-access", "Square access token", "스퀘어 액세스 토큰", ["SQUARE_ACCESS_TOKEN"], g_square),
    ("square-oauth-secret", "Square OAuth secret", "스퀘어 OAuth 시크릿", ["SQUARE_APP_SECRET"], fixed("sq0csp-", 43, URLSAFE)),
    ("braintree-access", "Braintree access token", "브레인트리 토큰", ["BRAINTREE_ACCESS_TOKEN"], g_braintree),
    ("flutterwave", "Flutterwave secret key", "플러터웨이브 시크릿 키", ["FLW_SECRET_KEY"], g_flutterwave),
    ("paystack", "Paystack secret key", "페이스택 시크릿 키", ["PAYSTACK_SECRET_KEY"], g_paystack),
    ("shopify-access", "Shopify admin access token", "쇼피파이 액세스 토큰", ["SHOPIFY_ACCESS_TOKEN"], g_shopify("shpat_")),
    ("shopify-shared-secret", "Shopify app shared secret", "쇼피파이 공유 시크릿", ["SHOPIFY_API_SECRET"], g_shopify("shpss_")),
    ("sendgrid", "SendGrid API key", "센드그리드 API 키", ["SENDGRID_API_KEY"], g_sendgrid),
    ("mailgun", "Mailgun API key", "메일건 API 키", ["MAILGUN_API_KEY"], fixed("key-", 32, HEX)),
    ("mailchimp", "Mailchimp API key", "메일침프 API 키", ["MAILCHIMP_API_KEY"], g_mailchimp),
    ("postmark", "Postmark server token", "포스트마크 서버 토큰", ["POSTMARK_SERVER_TOKEN"], uuid4),
    ("datadog-api", "Datadog API key", "데이터독 API 키", ["DD_API_KEY", "DATADOG_API_KEY"], g_datadog_api),
    ("datadog-app", "Datadog application key", "데이터독 앱 키", ["DD_APP_KEY"], g_datadog_app),
    ("newrelic-user", "New Relic user API key", "뉴렐릭 API 키", ["NEW_RELIC_API_KEY"], g_newrelic),
    ("newrelic-license", "New Relic license key", "뉴렐릭 라이선스 키", ["NEW_RELIC_LICENSE_KEY"], lambda r: rs(r, 36, HEX) + "NRAL"),
    ("sentry-user-token", "Sentry user auth token", "센트리 사용자 토큰", ["SENTRY_AUTH_TOKEN"], g_sentry_user),
    ("sentry-org-token", "Sentry organization token", "센트리 조직 토큰", ["SENTRY_ORG_TOKEN"], g_sentry_org),
    ("grafana-sa", "Grafana service account token", "그라파나 서비스 계정 토큰", ["GRAFANA_TOKEN"], g_grafana_sa),
    ("grafana-cloud", "Grafana Cloud access policy token", "그라파나 클라우드 토큰", ["GRAFANA_CLOUD_TOKEN"], g_grafana_cloud),
    ("dynatrace", "Dynatrace API token", "다이나트레이스 토큰", ["DT_API_TOKEN"], g_dt),
    ("splunk-hec", "Splunk HEC token", "스플렁크 HEC 토큰", ["SPLUNK_HEC_TOKEN"], uuid4),
    ("pagerduty", "PagerDuty API key", "페이저듀티 키", ["PAGERDUTY_TOKEN"], fixed("u+", 18, URLSAFE)),
    ("openai-legacy", "OpenAI API key", "OpenAI API 키", ["OPENAI_API_KEY"], g_openai_legacy),
    ("openai-project", "OpenAI project key", "OpenAI 프로젝트 키", ["OPENAI_API_KEY"], g_openai_proj),
    ("anthropic", "Anthropic API key", "앤트로픽 API 키", ["ANTHROPIC_API_KEY"], g_anthropic),
    ("huggingface", "Hugging Face token", "허깅페이스 토큰", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"], g_hf),
    ("groq", "Groq API key", "Groq API 키", ["GROQ_API_KEY"], fixed("gsk_", 52)),
    ("replicate", "Replicate API token", "레플리케이트 토큰", ["REPLICATE_API_TOKEN"], fixed("r8_", 37)),
    ("perplexity", "Perplexity API key", "퍼플렉시티 키", ["PPLX_API_KEY"], fixed("pplx-", 48)),
    ("xai", "xAI API key", "xAI API 키", ["XAI_API_KEY"], fixed("xai-", 80)),
    ("cohere", "Cohere API key", "코히어 API 키", ["COHERE_API_KEY", "CO_API_KEY"], g_cohere),
    ("mistral", "Mistral API key", "미스트랄 API 키", ["MISTRAL_API_KEY"], g_mistral),
    ("planetscale-pw", "PlanetScale database password", "플래닛스케일 DB 비밀번호", ["DATABASE_PASSWORD", "PSCALE_PASSWORD"], g_planetscale_pw),
    ("planetscale-token", "PlanetScale service token", "플래닛스케일 서비스 토큰", ["PLANETSCALE_SERVICE_TOKEN"], fixed("pscale_tkn_", 43, URLSAFE)),
    ("supabase-access", "Supabase access token", "수파베이스 액세스 토큰", ["SUPABASE_ACCESS_TOKEN"], fixed("sbp_", 40, HEX)),
    ("supabase-secret", "Supabase secret key", "수파베이스 시크릿 키", ["SUPABASE_SECRET_KEY"], g_supabase_secret),
    ("supabase-service-jwt", "Supabase service_role key", "수파베이스 service_role 키", ["SUPABASE_SERVICE_ROLE_KEY"], jwt),
    ("upstash-redis", "Upstash Redis REST token", "업스태시 레디스 토큰", ["UPSTASH_REDIS_REST_TOKEN"], g_upstash),
    ("databricks", "Databricks personal access token", "데이터브릭스 토큰", ["DATABRICKS_TOKEN"], g_databricks),
    ("linear", "Linear API key", "리니어 API 키", ["LINEAR_API_KEY"], g_linear),
    ("notion", "Notion integration token", "노션 통합 토큰", ["NOTION_TOKEN"], g_notion),
    ("airtable", "Airtable personal access token", "에어테이블 토큰", ["AIRTABLE_TOKEN"], g_airtable),
    ("postman", "Postman API key", "포스트맨 API 키", ["POSTMAN_API_KEY"], g_postman),
    ("dropbox", "Dropbox access token", "드롭박스 토큰", ["DROPBOX_TOKEN"], g_dropbox),
    ("okta", "Okta API token", "옥타 API 토큰", ["OKTA_API_TOKEN"], g_okta),
    ("mapbox-secret", "Mapbox secret token", "맵박스 시크릿 토큰", ["MAPBOX_SECRET_TOKEN"], g_mapbox_sk),
    ("easypost", "EasyPost API key", "이지포스트 키", ["EASYPOST_API_KEY"], g_easypost),
    ("prefect", "Prefect API key", "프리펙트 키", ["PREFECT_API_KEY"], g_prefect),
    ("scalingo", "Scalingo API token", "스칼링고 토큰", ["SCALINGO_API_TOKEN"], g_scalingo),
    ("telnyx", "Telnyx API key", "텔닉스 키", ["TELNYX_API_KEY"], g_telnyx),
    ("generic-jwt", "session JWT", "세션 JWT", ["SESSION_TOKEN", "AUTH_JWT"], jwt),
]

# ---------------------------------------------------------------- public / look-alike values (negatives)
def stripe_pk(r):
    return "pk_live_" + rs(r, 24)


def twilio_sid(r):
    return "AC" + rs(r, 32, HEX)


def google_client_id(r):
    return "%d-%s.apps.googleusercontent.com" % (r.randint(10 ** 11, 10 ** 12), rs(r, 32, LO + DIG))


def sha40(r):
    return rs(r, 40, HEX)


def sha256hex(r):
    return rs(r, 64, HEX)


def md5hex(r):
    return rs(r, 32, HEX)


def sri(r):
    return "sha512-" + b64bytes(r, 64)


def sentry_dsn(r):
    return "https://%s@o%d.ingest.sentry.io/%d" % (rs(r, 32, HEX), r.randint(10 ** 5, 10 ** 6), r.randint(10 ** 6, 10 ** 7))


def b64_of(text):
    return base64.b64encode(text.encode()).decode()


ENV_SECRETISH = ["DB_PASSWORD", "API_KEY", "SECRET_KEY", "AUTH_TOKEN", "REDIS_PASSWORD", "STRIPE_SECRET_KEY",
                 "GITHUB_TOKEN", "NPM_TOKEN", "AWS_SECRET_ACCESS_KEY", "JWT_SECRET", "SMTP_PASSWORD",
                 "POSTGRES_PASSWORD", "OPENAI_API_KEY", "SLACK_BOT_TOKEN", "ADMIN_PASS", "MYSQL_ROOT_PASSWORD",
                 "SENTRY_AUTH_TOKEN", "DD_API_KEY", "VAULT_TOKEN", "CLIENT_SECRET", "DATABASE_PASSWORD", "RABBITMQ_PASS",
                 "SENDGRID_API_KEY", "TWILIO_AUTH_TOKEN", "HF_TOKEN", "ANTHROPIC_API_KEY", "DOCKER_PASSWORD", "LDAP_BIND_PW",
                 "MONGO_INITDB_ROOT_PASSWORD", "ELASTIC_PASSWORD", "GRAFANA_ADMIN_PASSWORD", "SESSION_SECRET", "WEBHOOK_SECRET",
                 "CF_API_TOKEN", "PYPI_TOKEN", "MAILGUN_API_KEY", "KAFKA_SASL_PASSWORD", "S3_SECRET_KEY", "ENCRYPTION_KEY",
                 "OAUTH_CLIENT_SECRET", "REGISTRY_TOKEN"]
USERS = ["admin", "deploy", "app", "svc_api", "root", "postgres", "ci-bot", "jenkins", "minsu.kim", "jiyoung",
         "backend", "reporting", "etl_user", "grafana", "readonly", "ops", "hyunwoo", "dev01"]
DOMS = ["example.com", "acme.io", "hanbit.co.kr", "corp.local", "internal.example.org", "northwind.dev", "staging.acme.io",
        "mirae-tech.kr", "svc.cluster.local", "contoso.net"]
HOSTS = ["db.internal.example.com", "10.0.3.17", "pg-prod-1.corp.local", "mysql.staging.svc", "redis-01.cache.local",
         "bastion.acme.io", "172.16.4.21", "mq.hanbit.dev", "mongo-0.mongo.svc.cluster.local", "nas01.office.lan",
         "git.internal.hanbit.co.kr", "build-07.ci.local", "db-replica.ap-northeast-2.rds.amazonaws.com"]
APPS = ["billing", "orders", "checkout", "auth-svc", "reporting", "payments-api", "chatbot", "crawler", "admin-web", "etl"]
NICKS = ["minji", "alex", "soyeon", "dave", "jun", "priya", "taehoon", "maria", "kevin", "seojin"]


def slots(r):
    """one random slot dict used by templates. Secret slots: pw pws pwx pwu pwe tok hex b64up jwt.
    public slots: ref ref2 uuid sha"""
    user = r.choice(USERS)
    p = pw(r)
    ps = pw(r, SPEC_SH)
    while not ps[0].isalnum():
        ps = pw(r, SPEC_SH)
    px = pw(r, "+/=#?@!%$*")
    pu = pw_url(r)
    d = dict(
        user=user, user2=r.choice(USERS), host=r.choice(HOSTS), dom=r.choice(DOMS), port=str(r.choice([5432, 3306, 6379, 27017, 5672, 1433, 8443, 22, 2222, 6380])),
        db=r.choice(["app", "orders", "analytics", "prod", "billing", "users_db", "metrics"]),
        app=r.choice(APPS), nick=r.choice(NICKS), nick2=r.choice(NICKS[::-1]),
        date="2024-%02d-%02d" % (r.randint(1, 12), r.randint(1, 28)), hh="%02d:%02d" % (r.randint(0, 23), r.randint(0, 59)),
        n=str(r.randint(2, 99)), pid=str(r.randint(1000, 65000)),
        pw=p, pws=ps, pwx=px, pwu=pu, pwe=pct(pu),
        tok=rs(r, r.choice([32, 40, 48]), ALNUM) if r.random() < 0.6 else b64bytes(r, r.choice([24, 30, 33])),
        hex=rs(r, r.choice([32, 40, 64]), HEX),
        jwt=jwt(r),
        ref="${%s}" % r.choice(ENV_SECRETISH), ref2="$" + r.choice(ENV_SECRETISH),
        uuid=uuid4(r), sha=sha40(r),
        env=r.choice(ENV_SECRETISH),
    )
    d["b64up"] = b64_of(f"{user}:{ps}")
    return d


SECRET_SLOTS = ["pw", "pws", "pwx", "pwu", "pwe", "tok", "hex", "b64up", "jwt", "S"]
PUBLIC_SLOTS = ["ref", "ref2", "uuid", "sha", "P", "P2"]

SLOT_RE = re.compile(r"«(\w+)»")


def fill(tpl, d):
    """fill «slot» markers; returns (text, secrets, public) by slot class."""
    used = SLOT_RE.findall(tpl)
    text = SLOT_RE.sub(lambda m: d[m.group(1)], tpl)
    sec, pub = [], []
    for u in used:
        if u in SECRET_SLOTS or u.startswith("S_"):
            v = d[u]
            if v not in sec:
                sec.append(v)
        elif u in PUBLIC_SLOTS or u.startswith("P_"):
            v = d[u]
            if v not in pub:
                pub.append(v)
    return text, sec, pub


def has_hangul(s):
    return any("\uac00" <= c <= "\ud7a3" for c in s)


def _pair_aws(r):
    return {"S_id": g_aws_id(r), "S_sec": g_aws_secret(r)}


def _pair_sts(r):
    return {"S_id": g_aws_id(r, "ASIA"), "S_sec": g_aws_secret(r), "S_tok": "IQoJb3JpZ2luX2VjE" + rs(r, 260, ALNUM + "+/") + "="}


def _pair_twilio(r):
    return {"P_id": twilio_sid(r), "S_sec": rs(r, 32, HEX)}


def _pair_gclient(r):
    return {"P_id": google_client_id(r), "S_sec": g_gcp_oauth_secret(r)}


def _pair_azure(r):
    return {"P_id": uuid4(r), "P_ten": uuid4(r), "S_sec": g_azure_ad_secret(r)}


def _pair_algolia(r):
    return {"P_id": rs(r, 10, UP + DIG), "S_sec": rs(r, 32, HEX)}


def _pair_alibaba(r):
    return {"S_id": g_alibaba_id(r), "S_sec": rs(r, 30)}


def _pair_tencent(r):
    return {"S_id": g_tencent_id(r), "S_sec": rs(r, 32)}


def _pair_razorpay(r):
    return {"P_id": "rzp_live_" + rs(r, 14), "S_sec": rs(r, 24)}


def _pair_pusher(r):
    return {"P_id": str(r.randint(10 ** 6, 10 ** 7)), "P_key": rs(r, 20, HEX), "S_sec": rs(r, 20, HEX)}


def _pair_cloudinary(r):
    return {"P_id": str(r.randint(10 ** 14, 10 ** 15)), "S_sec": rs(r, 27, URLSAFE), "cloud": r.choice(["hanbit-media", "acme-assets", "dxk3m9"])}


def _pair_atlas(r):
    return {"P_id": rs(r, 8, LO), "S_sec": uuid4(r)}


# family -> (label, generator); slots S_* are secrets, P_* public
PAIRS = {
    "aws-keypair": ("AWS access key", _pair_aws),
    "aws-sts-credentials": ("AWS temporary credentials", _pair_sts),
    "twilio-sid-token": ("Twilio", _pair_twilio),
    "google-oauth-client": ("Google OAuth client", _pair_gclient),
    "azure-service-principal": ("Azure service principal", _pair_azure),
    "algolia-admin": ("Algolia", _pair_algolia),
    "alibaba-keypair": ("Alibaba Cloud AccessKey", _pair_alibaba),
    "tencent-keypair": ("Tencent Cloud API key", _pair_tencent),
    "razorpay-keypair": ("Razorpay", _pair_razorpay),
    "pusher-app": ("Pusher Channels", _pair_pusher),
    "cloudinary-url": ("Cloudinary", _pair_cloudinary),
    "mongodb-atlas-apikey": ("MongoDB Atlas API key", _pair_atlas),
}

KEY_FAMILIES = {
    "pem-rsa-private": lambda r: pem_block(r, "rsa"),
    "pem-ec-private": lambda r: pem_block(r, "ec"),
    "pem-pkcs8-private": lambda r: pem_block(r, "pkcs8"),
    "pem-encrypted-private": lambda r: pem_block(r, "enc"),
    "pem-dsa-private": lambda r: pem_block(r, "dsa"),
    "openssh-private": openssh_block,
    "pgp-private": pgp_block,
}


def transform(s, how):
    if how == "raw":
        return s
    if how == "json":
        return s.replace("\n", "\\n")
    if how.startswith("indent"):
        k = int(how[6:])
        return s.replace("\n", "\n" + " " * k)
    raise ValueError(how)


STRUCT_FAMILIES = [
    "sh-export-password", "dotenv-password", "ini-password", "yaml-password", "json-password", "toml-password",
    "netrc", "npmrc-token", "pypirc", "pip-conf-index", "docker-config-auth", "kubeconfig-token", "hcl-password",
    "java-properties", "spring-yaml", "helm-values", "gha-workflow", "compose-env", "systemd-env", "crontab-cred",
    "makefile-cred", "xml-password", "flag-mysql", "flag-pgpassword", "flag-sshpass", "flag-redis-cli",
    "redis-requirepass", "flag-curl-user", "flag-curl-bearer", "flag-password-generic", "flag-token-generic",
    "url-db-userinfo", "url-http-userinfo", "url-pct-userinfo", "jdbc-url-param", "ado-connstring",
    "sql-create-user", "http-basic-header", "http-apikey-header", "prose-en-password", "prose-en-temp-creds",
    "prose-ko-password", "prose-ko-token", "chat-password", "commit-password", "code-literal-password",
    "log-leaked-credential", "markdown-creds-table", "ldap-bind", "ansible-inventory", "wifi-psk",
    "powershell-securestring", "net-use-windows", "k8s-secret-stringdata", "gcp-service-account",
    "kubeconfig-client-key", "mixed-config-file", "ko-en-mixed-note", "stacktrace-credential",
]


def extra_slots(family, r):
    d = {}
    if family == "gcp-service-account":
        block, body = pem_block(r, "pkcs8")
        d["BLOCKJ"] = transform(block, "json")
        d["S_pk"] = transform(body, "json")
        proj = r.choice(["hanbit-prod", "acme-data-318", "checkout-dev", "ml-batch-7731"])
        d["proj"] = proj
        d["P_email"] = "%s@%s.iam.gserviceaccount.com" % (r.choice(["deployer", "etl-runner", "ci-sa", "bq-reader"]), proj)
        d["P_cid"] = str(r.randint(10 ** 20, 10 ** 21))
        d["kid"] = rs(r, 40, HEX)
    if family == "kubeconfig-client-key":
        block, _ = pem_block(r, r.choice(["rsa", "ec"]))
        d["S_ckd"] = b64_of(block + "\n")
        cblock, _ = cert_block(r)
        d["P_ccd"] = b64_of(cblock + "\n")
        d["cluster"] = r.choice(["prod-apne2", "staging", "kind-dev", "gke_hanbit_asia-northeast3_main"])
    return d


# ---------------------------------------------------------------- negative value slots (all public / harmless)
PLACEHOLDERS = ["<your-token>", "<YOUR_API_KEY>", "YOUR_API_KEY_HERE", "<password>", "xxxxxxxxxxxxxxxx", "XXXX-XXXX-XXXX",
                "********", "changeme", "change-me", "REPLACE_ME", "<insert-secret-here>", "your-password", "example-password",
                "dummy", "sk_test_xxxxxxxxxxxxxxxx", "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "TODO", "<redacted>",
                "[REDACTED]", "***REDACTED***", "<SECRET>", "${SECRET}", "secret-goes-here", "none", "null"]
LONGWORDS = ["internationalization", "AbstractSingletonProxyFactoryBean", "ConfigurationPropertiesBindingPostProcessor",
             "supercalifragilisticexpialidocious", "PasswordEncoderFactories", "TokenEndpointAuthenticationFilter",
             "DefaultCredentialsProviderChain", "SecretsManagerRotationLambda", "OAuth2AuthorizedClientService",
             "antidisestablishmentarianism", "KubernetesSecretVolumeProjection", "CredentialRotationScheduler"]


def neg_slots(r):
    env = r.choice(ENV_SECRETISH)
    env2 = r.choice(ENV_SECRETISH)
    block_c, _ = cert_block(r)
    block_p, _ = pubkey_block(r)
    ph = r.choice(PLACEHOLDERS)
    while len(ph) < 3 or ph in ("none", "null", "TODO"):
        ph = r.choice(PLACEHOLDERS)
    d = dict(
        env=env, env2=env2, envl=env.lower(), user=r.choice(USERS), host=r.choice(HOSTS), dom=r.choice(DOMS), app=r.choice(APPS),
        nick=r.choice(NICKS), nick2=r.choice(NICKS[::-1]), n=str(r.randint(8, 64)), port=str(r.choice([5432, 3306, 6379, 8080, 443])),
        date="2024-%02d-%02d" % (r.randint(1, 12), r.randint(1, 28)), hh="%02d:%02d" % (r.randint(0, 23), r.randint(0, 59)),
        db=r.choice(["app", "orders", "analytics", "prod"]),
        P_dref="$" + env, P_bref="${" + env + "}", P_bref2="${" + env2 + "}", P_defref="${%s:-}" % env,
        P_pyref='os.environ["%s"]' % env, P_getenv='os.getenv("%s")' % env, P_jsref="process.env." + env,
        P_javaref='System.getenv("%s")' % env, P_settings="settings." + env, P_mref="$(" + env + ")",
        P_jinja="{{ %s }}" % env.lower(), P_helm="{{ .Values.%s.%s }}" % (r.choice(["db", "redis", "auth"]), r.choice(["password", "token", "secret"])),
        P_gha="${{ secrets.%s }}" % env, P_pct="%%(%s)s" % r.choice(["password", "db_password", "token"]),
        P_tf="var.%s" % env.lower(), P_springref="${%s}" % env, P_erb="<%%= ENV['%s'] %%>" % env,
        P_ph=ph, P_red=r.choice(["[REDACTED]", "***", "<redacted>", "[FILTERED]", "********"]),
        P_uuid=uuid4(r), P_uuid2=uuid4(r), P_sha=sha40(r), P_sha7=rs(r, 7, HEX), P_sha256=sha256hex(r), P_md5=md5hex(r),
        P_sri=sri(r), P_digest="sha256:" + sha256hex(r), P_ac=twilio_sid(r), P_pk=stripe_pk(r), P_pkt="pk_test_" + rs(r, 24),
        P_gcid=google_client_id(r), P_ssh=ssh_pub(r), P_cert=block_c, P_pub=block_p, P_dsn=sentry_dsn(r),
        P_ami="ami-0" + rs(r, 16, HEX), P_arn="arn:aws:secretsmanager:ap-northeast-2:%d:secret:prod/%s-%s" % (r.randint(10 ** 11, 10 ** 12), env.lower(), rs(r, 6)),
        P_iamrole="arn:aws:iam::%d:role/%s-deployer" % (r.randint(10 ** 11, 10 ** 12), r.choice(APPS)),
        P_b64=b64_of('{"theme":"dark","lang":"%s","page":%d}' % (r.choice(["ko", "en"]), r.randint(1, 50))),
        P_b64t=b64_of(r.choice(["hello world\n", "Lorem ipsum dolor sit amet", "apiVersion: v1\nkind: ConfigMap\n", "서울특별시 강남구"])),
        P_cus=r.choice(["cus_", "pi_", "ch_", "evt_", "acct_", "price_", "sub_"]) + rs(r, 14) , P_slackch="C0" + rs(r, 9, UP + DIG),
        P_sm="SM" + rs(r, 32, HEX), P_sbpub="sb_publishable_" + rs(r, 22, URLSAFE) + "_" + rs(r, 8), P_mbpk="pk.eyJ1Ijoi" + rs(r, 30, URLSAFE) + "." + rs(r, 22, URLSAFE),
        P_awsex="AKIAIOSFODNN7EXAMPLE", P_awsexs="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        P_word=r.choice(LONGWORDS), P_semver="%d.%d.%d" % (r.randint(0, 9), r.randint(0, 30), r.randint(0, 99)),
        P_vault="secret/data/%s/%s" % (r.choice(["prod", "staging"]), r.choice(APPS)), P_secfile="/run/secrets/" + env.lower(),
        P_keyid=r.choice(["AKIA", "ASIA"]) and "key-" + rs(r, 8, HEX), P_mac=":".join(rs(r, 2, HEX) for _ in range(6)),
        P_color="#" + rs(r, 6, HEX), P_ghrun=str(r.randint(10 ** 9, 10 ** 10)), P_trace=rs(r, 32, HEX),
        P_kms="projects/%s/locations/global/keyRings/main/cryptoKeys/%s" % (r.choice(["hanbit-prod", "acme-dev"]), env.lower()),
        P_clientid=rs(r, 20, HEX), P_npmint="sha1-" + b64bytes(r, 20),
        P_png="iVBORw0KGgoAAAANSUhEUgAA" + b64bytes(r, r.randint(45, 90)), P_fp="SHA256:" + b64bytes(r, 32, pad=False),
    )
    return d
