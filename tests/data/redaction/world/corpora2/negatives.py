"""Hard negatives: realistic technical text with look-alikes but no secret.

Each kind maps bank -> list of builder functions f(r) -> (form, lang, text, public_list).
"""
import base64
import hashlib
import values as V
from values import rs, ALNUM, HEX, DIG, LO, UP, B64URL

MSGS = ["fix race in session cleanup", "bump axios to 1.7.4", "refactor: split billing worker", "docs: clarify retry policy",
        "feat(api): paginate /v2/orders", "ci: cache pnpm store", "revert \"enable http2 on ingress\"", "chore: drop python 3.8"]


def sha(r, n=40):
    return rs(r, HEX, n)


def sri(r, alg="sha512"):
    n = 64 if alg == "sha512" else 32 if alg == "sha256" else 48
    return alg + "-" + V.b64(V.rbytes(r, n))


def pkg(r):
    return r.choice(["lodash", "react-dom", "@babel/core", "esbuild", "typescript", "zod", "undici", "chalk", "@types/node", "vite"])


def semver(r):
    return f"{r.randrange(0, 20)}.{r.randrange(0, 30)}.{r.randrange(0, 40)}"


def ulid(r):
    return rs(r, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)


def one(*fs):
    return list(fs)


K = {}

# ---------------------------------------------------------------- git sha
K["neg-git-sha"] = {
    "A": one(
        lambda r: (lambda s: ("prose", "en", f"Bisected the regression to {s} (\"{r.choice(MSGS)}\"); reverting it in #{r.randrange(100, 9999)}.", [s]))(sha(r)),
        lambda r: (lambda a, b, c: ("shell", "en", f"$ git log --oneline -3\n{a} {r.choice(MSGS)}\n{b} {r.choice(MSGS)}\n{c} {r.choice(MSGS)}", [a, b, c]))(sha(r, 7), sha(r, 7), sha(r, 7)),
        lambda r: (lambda s: ("prose", "ko", f"이 버그는 {s} 커밋에서 들어온 것 같아요. 리버트 PR 올릴게요.", [s]))(sha(r)),
        lambda r: (lambda s, p: ("commit", "en", f"commit {s}\nMerge: {p[:7]} {s[:7]}\nAuthor: Dana Kim <dana@example.com>\n\n    {r.choice(MSGS)}", [s, p[:7]]))(sha(r), sha(r)),
    ),
    "B": one(
        lambda r: (lambda s: ("shell", "en", f"git cherry-pick -x {s} && git push origin release/2026.12", [s]))(sha(r)),
        lambda r: (lambda s: ("prose", "en", f"The v{semver(r)} tag points at {s}; anything after that ships next week.", [s]))(sha(r)),
        lambda r: (lambda s: ("prose", "ko", f"릴리스 태그는 {s} 를 가리킵니다. 이후 커밋은 다음 배포에 포함돼요.", [s]))(sha(r)),
        lambda r: (lambda s: ("log", "en", f"[ci] checkout: HEAD is now at {s[:12]} {r.choice(MSGS)}\n[ci] submodule path 'vendor/proto': checked out '{s}'", [s]))(sha(r)),
    ),
}

# ---------------------------------------------------------------- uuid
K["neg-uuid"] = {
    "A": one(
        lambda r: (lambda u: ("log", "en", f"2026-11-30T11:02:33Z INFO request_id={u} method=GET path=/v1/orders status=200 dur=41ms", [u]))(V.uuid4(r)),
        lambda r: (lambda u: ("yaml", "en", f"metadata:\n  name: api-7c9f8d6b5-x2k4q\n  namespace: prod\n  uid: {u}\n  resourceVersion: \"{r.randrange(10**6, 10**8)}\"", [u]))(V.uuid4(r)),
        lambda r: (lambda u: ("prose", "ko", f"주문 ID {u} 건 환불 처리 부탁드립니다.", [u]))(V.uuid4(r)),
        lambda r: (lambda u, w: ("json", "en", f"{{\"tenant_id\": \"{u}\", \"workspace_id\": \"{w}\", \"plan\": \"team\"}}", [u, w]))(V.uuid4(r), V.uuid4(r)),
    ),
    "B": one(
        lambda r: (lambda u: ("shell", "en", f"az account set --subscription {u}\naz group list -o table", [u]))(V.uuid4(r)),
        lambda r: (lambda u: ("prose", "en", f"Correlation ID {u} — attach it when you open the support ticket.", [u]))(V.uuid4(r)),
        lambda r: (lambda u: ("chat", "ko", f"유진: 이 트레이스 좀 봐주세요 trace={u}\n석진: 넵 확인할게요", [u]))(V.uuid4(r)),
        lambda r: (lambda u: ("code", "en", f"@Test\nvoid findsOrder() {{\n    var id = UUID.fromString(\"{u}\");\n    assertThat(repo.findById(id)).isPresent();\n}}", [u]))(V.uuid4(r)),
    ),
}

# ---------------------------------------------------------------- lockfiles
K["neg-lockfile-integrity"] = {
    "A": one(
        lambda r: (lambda p, v, s: ("json", "en", f"\"node_modules/{p}\": {{\n  \"version\": \"{v}\",\n  \"resolved\": \"https://registry.npmjs.org/{p}/-/{p.split('/')[-1]}-{v}.tgz\",\n  \"integrity\": \"{s}\",\n  \"dev\": true\n}}", [s]))(pkg(r), semver(r), sri(r)),
        lambda r: (lambda h: ("prose", "en", f"go.sum changed only in golang.org/x/net v0.{r.randrange(20, 40)}.0 h1:{h}= — safe to merge.", [h + "="]))(V.b64(V.rbytes(r, 32))[:43]),
        lambda r: (lambda h: ("toml", "en", f"[[package]]\nname = \"serde_json\"\nversion = \"1.0.{r.randrange(100, 140)}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{h}\"", [h]))(sha(r, 64)),
        lambda r: (lambda s: ("prose", "ko", f"lockfile 충돌 나서 다시 생성했어요. {pkg(r)} integrity 값이 {s} 로 바뀜.", [s]))(sri(r)),
    ),
    "B": one(
        lambda r: (lambda p, v, s: ("yaml", "en", f"\"{p}@^{v}\":\n  version \"{v}\"\n  resolved \"https://registry.yarnpkg.com/{p}/-/{p.split('/')[-1]}-{v}.tgz#{sha(r)}\"\n  integrity {s}", [s]))(pkg(r), semver(r), sri(r)),
        lambda r: (lambda a, b: ("toml", "en", f"[[package]]\nname = \"requests\"\nversion = \"2.32.3\"\nfiles = [\n    {{file = \"requests-2.32.3-py3-none-any.whl\", hash = \"sha256:{a}\"}},\n    {{file = \"requests-2.32.3.tar.gz\", hash = \"sha256:{b}\"}},\n]", [a, b]))(sha(r, 64), sha(r, 64)),
        lambda r: (lambda h: ("code", "en", f"<script src=\"https://cdn.jsdelivr.net/npm/alpinejs@3.14.1/dist/cdn.min.js\" integrity=\"{h}\" crossorigin=\"anonymous\" defer></script>", [h]))(sri(r, "sha384")),
        lambda r: (lambda h: ("prose", "ko", f"requirements.txt 에 --hash=sha256:{h} 고정해두었습니다.", [h]))(sha(r, 64)),
    ),
}


def png_b64(r):
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + V.rbytes(r, r.randrange(60, 160))
    return V.b64(data)


K["neg-base64-image"] = {
    "A": one(
        lambda r: (lambda d: ("code", "en", f".icon-check {{\n  background-image: url(\"data:image/png;base64,{d}\");\n  width: 16px;\n}}", [d]))(png_b64(r)),
        lambda r: (lambda d: ("code", "en", f"<img alt=\"logo\" src=\"data:image/png;base64,{d}\" />", [d]))(png_b64(r)),
        lambda r: (lambda d: ("prose", "ko", f"favicon 을 인라인으로 넣었어요: data:image/png;base64,{d}", [d]))(png_b64(r)),
    ),
    "B": one(
        lambda r: (lambda d: ("json", "en", f"{{\"name\": \"avatar.png\", \"mime\": \"image/png\", \"content\": \"{d}\"}}", [d]))(png_b64(r)),
        lambda r: (lambda d: ("code", "en", f"const PLACEHOLDER_IMG = 'data:image/png;base64,{d}';", [d]))(png_b64(r)),
        lambda r: (lambda d: ("prose", "ko", f"썸네일 기본 이미지 base64: {d}", [d]))(png_b64(r)),
    ),
}


def b64txt(r):
    s = r.choice(["{\"theme\":\"dark\",\"lang\":\"ko\",\"beta\":false}", "hello from the build server", "apiVersion: v1\nkind: ConfigMap",
                  "user-preferences:v3", "{\"page\":2,\"per_page\":50,\"sort\":\"created_at\"}", "2026-11-30T09:00:00Z|orders|cursor"])
    return V.b64(s.encode())


K["neg-base64-text"] = {
    "A": one(
        lambda r: (lambda d: ("json", "en", f"{{\"data\": [], \"next_cursor\": \"{d}\"}}", [d]))(b64txt(r)),
        lambda r: (lambda d: ("yaml", "en", f"apiVersion: v1\nkind: ConfigMap\nbinaryData:\n  banner.txt: {d}", [d]))(b64txt(r)),
        lambda r: (lambda d: ("prose", "ko", f"페이지네이션 커서는 {d} 형태의 base64 문자열이에요.", [d]))(b64txt(r)),
    ),
    "B": one(
        lambda r: (lambda d: ("shell", "en", f"$ echo '{d}' | base64 -d\n", [d]))(b64txt(r)),
        lambda r: (lambda d: ("log", "en", f"DEBUG cookie prefs={d}; Path=/; SameSite=Lax", [d]))(b64txt(r)),
        lambda r: (lambda d: ("chat", "ko", f"지호: 이 값 뭐예요? {d}\n하린: 그냥 UI 설정 base64 예요", [d]))(b64txt(r)),
    ),
}

# ---------------------------------------------------------------- placeholders
PH_VALUES = ["<your-api-key>", "<YOUR_TOKEN>", "your-secret-here", "REPLACE_ME", "xxxxxxxxxxxxxxxx",
             "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", "sk-...", "AKIAXXXXXXXXXXXXXXXX", "********", "<password>", "TODO",
             "sk_live_XXXXXXXXXXXXXXXXXXXXXXXX", "xoxb-your-bot-token", "<paste-token-here>", "${TOKEN}", "{{ api_key }}"]
K["neg-placeholder"] = {
    "A": one(
        lambda r: (lambda p: ("prose", "en", f"Set OPENAI_API_KEY to {p} in your shell profile, then run `make dev`.", [p]))(r.choice(PH_VALUES)),
        lambda r: (lambda p: ("dotenv", "en", f"# copy to .env and fill in\nGITHUB_TOKEN={p}\nSLACK_BOT_TOKEN={r.choice(PH_VALUES)}", [p]))(r.choice(PH_VALUES[:10])),
        lambda r: (lambda p: ("prose", "ko", f"README 예시처럼 API_KEY={p} 부분을 본인 키로 바꿔서 쓰세요.", [p]))(r.choice(PH_VALUES)),
        lambda r: (lambda p: ("yaml", "en", f"# values.example.yaml\nauth:\n  token: \"{p}\"\n  password: \"<password>\"", [p, "<password>"]))(r.choice(PH_VALUES[:6])),
    ),
    "B": one(
        lambda r: (lambda p: ("code", "en", f"client = Client(api_key=\"{p}\")  # replace with your key", [p]))(r.choice(PH_VALUES)),
        lambda r: (lambda p: ("shell", "en", f"curl -H \"Authorization: Bearer {p}\" https://api.example.com/v1/me", [p]))(r.choice(PH_VALUES)),
        lambda r: (lambda p: ("prose", "ko", f"설정 파일의 token 값은 {p} 로 두고, 실제 값은 Vault 에서 주입됩니다.", [p]))(r.choice(PH_VALUES)),
        lambda r: (lambda p: ("ini", "en", f"[credentials]\n; fill these in locally, never commit\nusername = <username>\npassword = {p}", ["<username>", p]))(r.choice(PH_VALUES)),
    ),
}

# ---------------------------------------------------------------- env refs
REFS_A = [("shell", "export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY", ["$AWS_SECRET_ACCESS_KEY"]),
          ("yaml", "env:\n  DB_PASSWORD: ${DB_PASSWORD}\n  REDIS_URL: ${REDIS_URL}", ["${DB_PASSWORD}", "${REDIS_URL}"]),
          ("code", "const apiKey = process.env.API_KEY ?? '';\nif (!apiKey) throw new Error('API_KEY missing');", ["process.env.API_KEY"]),
          ("code", "client_secret = settings.OAUTH_CLIENT_SECRET\nclient_id = settings.OAUTH_CLIENT_ID", ["settings.OAUTH_CLIENT_SECRET", "settings.OAUTH_CLIENT_ID"]),
          ("ini", "[db]\nurl = postgresql://%(user)s:%(password)s@%(host)s/app\ntoken=%(token)s", ["%(password)s", "%(token)s"]),
          ("yaml", "- name: Publish\n  run: npm publish\n  env:\n    NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}", ["${{ secrets.NPM_TOKEN }}"]),
          ("code", "password: {{ .Values.postgresql.auth.password | quote }}", ["{{ .Values.postgresql.auth.password | quote }}"]),
          ("code", "stripe.api_key = os.environ[\"STRIPE_SECRET_KEY\"]", ["os.environ[\"STRIPE_SECRET_KEY\"]"])]
REFS_B = [("shell", "export GITHUB_TOKEN=\"${GITHUB_TOKEN:?must be set}\"", ["${GITHUB_TOKEN:?must be set}"]),
          ("code", "db_pass = os.getenv(\"DB_PASS\")\nassert db_pass, \"DB_PASS not set\"", ["os.getenv(\"DB_PASS\")"]),
          ("hcl", "password = var.db_password\ntoken    = data.vault_generic_secret.ci.data[\"token\"]", ["var.db_password", "data.vault_generic_secret.ci.data[\"token\"]"]),
          ("yaml", "password: \"{{ vault_db_password }}\"\napi_token: \"{{ lookup('env', 'API_TOKEN') }}\"", ["{{ vault_db_password }}", "{{ lookup('env', 'API_TOKEN') }}"]),
          ("shell", "docker login -u ci --password \"$(cat /run/secrets/registry_password)\" registry.example.com", ["$(cat /run/secrets/registry_password)"]),
          ("code", "String secret = System.getenv(\"JWT_SECRET\");", ["System.getenv(\"JWT_SECRET\")"]),
          ("makefile", "deploy:\n\t./bin/release --token $(RELEASE_TOKEN) --password $$DEPLOY_PASSWORD", ["$(RELEASE_TOKEN)", "$$DEPLOY_PASSWORD"]),
          ("code", "let key = env::var(\"ANTHROPIC_API_KEY\").expect(\"set ANTHROPIC_API_KEY\");", ["env::var(\"ANTHROPIC_API_KEY\")"])]


def _ref(bank, ko=False):
    src = REFS_A if bank == "A" else REFS_B

    def f(r):
        form, t, pub = r.choice(src)
        if ko:
            pre = ["# 실제 값은 CI 시크릿에서 주입\n", "# 비밀번호는 환경변수로만 받습니다\n", "# 토큰 하드코딩 금지\n"] if bank == "A" else \
                ["# 값은 배포 시점에 주입돼요\n", "# 시크릿은 볼트에서 읽어옵니다 (하드코딩 X)\n", "# 로컬에서는 .env 로 설정\n"]
            t = r.choice(pre) + t
            return form, "ko", t, pub
        return form, "en", t, pub
    return f


K["neg-env-reference"] = {"A": [_ref("A"), _ref("A"), _ref("A", True)], "B": [_ref("B"), _ref("B"), _ref("B", True)]}

# ---------------------------------------------------------------- code without values
K["neg-code"] = {
    "A": one(
        lambda r: ("code", "en", "def login(user):\n    password = getpass.getpass(\"Password: \")\n    digest = hashlib.sha256(password.encode()).hexdigest()\n    return api.auth(user, digest)", []),
        lambda r: ("code", "en", "const token = req.headers.authorization?.split(' ')[1];\nif (!token) return res.status(401).json({ error: 'missing token' });", []),
        lambda r: ("code", "en", "func (c *Client) SetToken(token string) {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tc.token = token\n}", []),
        lambda r: ("code", "ko", "# 비밀번호는 bcrypt 로 해시해서 저장 (평문 저장 금지)\nhashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=12))", []),
    ),
    "B": one(
        lambda r: ("code", "en", "public boolean verify(String password, String hash) {\n    return encoder.matches(password, hash);\n}", []),
        lambda r: ("code", "en", "class Settings(BaseSettings):\n    api_key: SecretStr\n    db_password: SecretStr = Field(..., env=\"DB_PASSWORD\")", []),
        lambda r: ("code", "en", "if let Some(token) = headers.get(\"x-api-key\") {\n    validate(token)?;\n}", []),
        lambda r: ("code", "ko", "// 토큰 만료 시 refresh 호출\nif (isExpired(accessToken)) {\n  accessToken = await refresh(refreshToken);\n}", []),
    ),
}

# ---------------------------------------------------------------- korean prose
K["neg-ko-prose"] = {
    "A": one(
        lambda r: ("prose", "ko", "비밀번호는 설정 > 보안 메뉴에서 변경할 수 있습니다. 분실 시 관리자에게 초기화를 요청하세요.", []),
        lambda r: ("prose", "ko", "운영 DB 비밀번호는 1Password 의 '인프라' 볼트에 있습니다. 슬랙에 붙여넣지 마세요.", []),
        lambda r: ("chat", "ko", "[오후 3:10] 가람: 토큰 만료돼서 재발급 받았어요\n[오후 3:11] 보경: 새 토큰은 시크릿 매니저에 올려주세요", []),
        lambda r: ("prose", "ko", "API 키를 코드에 하드코딩하면 안 됩니다. 환경 변수나 Vault 를 사용하세요.", []),
    ),
    "B": one(
        lambda r: ("prose", "ko", "암호를 잊어버렸다면 로그인 화면의 '비밀번호 찾기' 링크를 누르세요.", []),
        lambda r: ("prose", "ko", "토큰 값은 보안상 위키에 적지 않았습니다. 필요하면 DM 주세요.", []),
        lambda r: ("chat", "ko", "희수: 스테이징 비번 바뀌었나요?\n동욱: 네 어제 바뀌었어요, 볼트에서 확인하세요", []),
        lambda r: ("prose", "ko", "시크릿 키는 90일마다 교체되며, 교체 후 이전 키는 24시간 뒤 폐기됩니다.", []),
    ),
}


def tid(r):
    return rs(r, HEX, 32)


K["neg-log"] = {
    "A": one(
        lambda r: (lambda t, s: ("log", "en", f"2026-11-29T22:41:09.118Z INFO http trace_id={t} span_id={s} GET /healthz 200 1.2ms", [t, s]))(tid(r), rs(r, HEX, 16)),
        lambda r: ("log", "en", f"Nov 30 04:12:01 web-3 sshd[{r.randrange(1000, 99999)}]: Failed password for invalid user admin from 203.0.113.{r.randrange(1, 254)} port {r.randrange(30000, 65000)} ssh2", []),
        lambda r: ("log", "en", f"INFO auth: token refreshed for user_id={r.randrange(1000, 99999)} (expires_in=3600s)", []),
        lambda r: (lambda h: ("log", "ko", f"[배포] 빌드 완료 artifact_sha256={h} (소요 4분 12초)", [h]))(sha(r, 64)),
    ),
    "B": one(
        lambda r: (lambda t: ("log", "en", f"{{\"level\":\"info\",\"msg\":\"request completed\",\"traceparent\":\"00-{t}-{rs(r, HEX, 16)}-01\",\"status\":204}}", [t]))(tid(r)),
        lambda r: ("log", "en", "WARN  login failed: invalid password for user 'mkim' (attempt 3/5), account will be locked after 5 attempts", []),
        lambda r: (lambda c: ("log", "en", f"containerd: pulled image docker.io/library/nginx:1.27 container_id={c}", [c]))(sha(r, 64)),
        lambda r: ("log", "ko", "[인증] 토큰 검증 실패: 서명 불일치 (kid 누락) — 클라이언트 재로그인 필요", []),
    ),
}


def gdoc(r):
    return rs(r, B64URL, 44)


K["neg-url"] = {
    "A": one(
        lambda r: (lambda d: ("url", "en", f"Spec is here: https://docs.google.com/document/d/{d}/edit?usp=sharing", [d]))(gdoc(r)),
        lambda r: (lambda s: ("url", "en", f"https://github.com/acme/platform/blob/{s}/services/billing/worker.py#L120-L140", [s]))(sha(r)),
        lambda r: (lambda v: ("url", "ko", f"데모 영상: https://www.youtube.com/watch?v={v}&t=42s", [v]))(rs(r, B64URL, 11)),
        lambda r: ("url", "en", f"https://user@example.com is not a credential, just a mailto-ish URL in the docs; see https://example.com/login?next=/settings/password", []),
    ),
    "B": one(
        lambda r: (lambda d: ("url", "en", f"Dashboard: https://app.datadoghq.com/dashboard/{rs(r, LO + DIG, 3)}-{rs(r, LO + DIG, 3)}-{rs(r, LO + DIG, 3)}/api-latency?from_ts={r.randrange(10**12, 2 * 10**12)}", []))(0),
        lambda r: (lambda d: ("url", "en", f"https://drive.google.com/file/d/{d}/view", [d]))(rs(r, B64URL, 33)),
        lambda r: (lambda s: ("url", "ko", f"관련 이슈: https://gitlab.com/acme/web/-/commit/{s}", [s]))(sha(r)),
        lambda r: ("url", "en", "Reset link format: https://accounts.example.com/reset-password?lang=en (the actual token is emailed, never logged)", []),
    ),
}

K["neg-hash"] = {
    "A": one(
        lambda r: (lambda a, b: ("shell", "en", f"$ sha256sum dist/*\n{a}  dist/app-linux-amd64\n{b}  dist/app-darwin-arm64", [a, b]))(sha(r, 64), sha(r, 64)),
        lambda r: (lambda m: ("prose", "en", f"MD5 of the uploaded backup matches: {m}.", [m]))(sha(r, 32)),
        lambda r: (lambda m: ("prose", "ko", f"다운로드 파일 SHA-256 체크섬: {m} 일치 확인했습니다.", [m]))(sha(r, 64)),
    ),
    "B": one(
        lambda r: (lambda a: ("code", "en", f"RUN echo \"{a}  /tmp/helm.tar.gz\" | sha256sum -c -", [a]))(sha(r, 64)),
        lambda r: (lambda a: ("json", "en", f"{{\"file\": \"model.safetensors\", \"sha512\": \"{a}\"}}", [a]))(sha(r, 128)),
        lambda r: (lambda a: ("prose", "ko", f"ETag 가 \"{a}\" 로 같아서 캐시가 갱신되지 않았어요.", [a]))(sha(r, 32)),
    ),
}

K["neg-docs-example"] = {
    "A": one(
        lambda r: ("ini", "en", "# example from the AWS CLI docs\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
        lambda r: ("prose", "en", "The Slack docs show webhook URLs like https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX — yours will differ.", ["T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"]),
        lambda r: ("prose", "ko", "문서 예시 값 AKIAIOSFODNN7EXAMPLE 은 실제 키가 아니니 그대로 쓰면 인증 실패합니다.", ["AKIAIOSFODNN7EXAMPLE"]),
    ),
    "B": one(
        lambda r: ("shell", "en", "# docs example, replace with your own\nexport AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nexport AWS_DEFAULT_REGION=us-west-2", ["AKIAIOSFODNN7EXAMPLE"]),
        lambda r: ("prose", "en", "Per RFC 7617 the example credentials Aladdin:open sesame encode to QWxhZGRpbjpvcGVuIHNlc2FtZQ==, which every tutorial copies.", ["QWxhZGRpbjpvcGVuIHNlc2FtZQ=="]),
        lambda r: ("prose", "ko", "예제의 postgres://user:password@localhost:5432/mydb 는 자리표시자입니다.", ["postgres://user:password@localhost:5432/mydb"]),
    ),
}


def stripe_obj(r):
    return r.choice(["cus_", "pi_", "ch_", "evt_", "price_", "sub_", "in_", "prod_"]) + rs(r, ALNUM, r.choice([14, 24]))


K["neg-high-entropy-id"] = {
    "A": one(
        lambda r: (lambda a, b: ("log", "en", f"webhook received type=invoice.paid id={a} customer={b}", [a, b]))(stripe_obj(r), "cus_" + rs(r, ALNUM, 14)),
        lambda r: (lambda i, v: ("shell", "en", f"aws ec2 describe-instances --instance-ids {i} --filters Name=vpc-id,Values={v}", [i, v]))("i-0" + rs(r, HEX, 16), "vpc-0" + rs(r, HEX, 16)),
        lambda r: (lambda u: ("prose", "ko", f"이벤트 ID {u} 로 재처리 큐에 넣었습니다.", [u]))(ulid(r)),
        lambda r: (lambda a: ("json", "en", f"{{\"arn\": \"arn:aws:iam::{rs(r, DIG, 12)}:role/ci-deployer\", \"RoleId\": \"{a}\"}}", [a]))("AROA" + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 17)),
    ),
    "B": one(
        lambda r: (lambda c: ("prose", "en", f"Pinned the dataset to IPFS CID {c} so the benchmark is reproducible.", [c]))("bafy" + rs(r, "abcdefghijklmnopqrstuvwxyz234567", 55)),
        lambda r: (lambda a: ("log", "en", f"sentry: captured event {a} (level=error, release=web@{semver(r)})", [a]))(rs(r, HEX, 32)),
        lambda r: (lambda p: ("chat", "ko", f"현준: 파드 {p} 가 계속 재시작해요\n다은: OOM 인 듯요", [p]))(f"api-{rs(r, LO + DIG, 10)}-{rs(r, LO + DIG, 5)}"),
        lambda r: (lambda s: ("json", "en", f"{{\"id\": \"{s}\", \"object\": \"payment_intent\", \"amount\": 15000, \"currency\": \"krw\", \"status\": \"succeeded\"}}", [s]))("pi_" + rs(r, ALNUM, 24)),
    ),
}

K["neg-css-hex"] = {
    "A": one(
        lambda r: (lambda a, b: ("code", "en", f":root {{\n  --brand: #{a};\n  --brand-dark: #{b};\n  --radius: 8px;\n}}", ["#" + a, "#" + b]))(rs(r, HEX, 6), rs(r, HEX, 6)),
        lambda r: (lambda a: ("prose", "ko", f"버튼 색상은 #{a} 로 통일해주세요.", ["#" + a]))(rs(r, HEX, 6)),
    ),
    "B": one(
        lambda r: (lambda a, b: ("code", "en", f"module.exports = {{ theme: {{ extend: {{ colors: {{ primary: '#{a}', accent: '#{b}' }} }} }} }};", ["#" + a, "#" + b]))(rs(r, HEX, 6), rs(r, HEX, 6)),
        lambda r: (lambda a: ("prose", "ko", f"다크 모드 배경은 #{a}ff 입니다.", ["#" + a + "ff"]))(rs(r, HEX, 6)),
    ),
}

K["neg-semver"] = {
    "A": one(
        lambda r: (lambda a, b: ("prose", "en", f"Upgraded {pkg(r)} from {a} to {b}; no breaking changes in the changelog.", [a, b]))(semver(r), semver(r)),
        lambda r: (lambda a: ("prose", "ko", f"v{a} 릴리스 노트 정리했습니다.", [a]))(semver(r)),
    ),
    "B": one(
        lambda r: (lambda a: ("json", "en", f"{{\"name\": \"@acme/ui\", \"version\": \"{a}\", \"peerDependencies\": {{\"react\": \"^18.3.1\"}}}}", [a]))(semver(r) + "-rc." + str(r.randrange(1, 9))),
        lambda r: (lambda a: ("prose", "ko", f"쿠버네티스 {a} 로 올리면서 API 버전 바뀐 리소스 확인 필요.", [a]))("1." + str(r.randrange(25, 32)) + "." + str(r.randrange(0, 9))),
    ),
}

K["neg-docker-digest"] = {
    "A": one(
        lambda r: (lambda d: ("yaml", "en", f"containers:\n  - name: api\n    image: ghcr.io/acme/api@sha256:{d}", [d]))(sha(r, 64)),
        lambda r: (lambda d: ("prose", "ko", f"베이스 이미지를 python:3.12-slim@sha256:{d} 로 고정했습니다.", [d]))(sha(r, 64)),
    ),
    "B": one(
        lambda r: (lambda d: ("code", "en", f"FROM node:20-alpine@sha256:{d} AS build", [d]))(sha(r, 64)),
        lambda r: (lambda d: ("log", "en", f"Digest: sha256:{d}\nStatus: Downloaded newer image for redis:7.4", [d]))(sha(r, 64)),
    ),
}

K["neg-ssh-public-key"] = {
    "A": one(
        lambda r: (lambda k: ("shell", "en", f"$ cat ~/.ssh/id_ed25519.pub\n{k}", [k]))(V.ssh_pub_ed25519(r, "dana@laptop")),
        lambda r: (lambda k: ("yaml", "en", f"users:\n  - name: deploy\n    ssh_authorized_keys:\n      - {k}", [k]))(V.ssh_pub_rsa(r, "deploy@ci")),
        lambda r: (lambda k: ("prose", "ko", f"제 공개키 등록 부탁드려요: {k}", [k]))(V.ssh_pub_ed25519(r, "minji@mac")),
    ),
    "B": one(
        lambda r: (lambda k: ("prose", "en", f"Add this to authorized_keys on the bastion: {k}", [k]))(V.ssh_pub_ed25519(r, "ops@bastion")),
        lambda r: (lambda k: ("hcl", "en", f"resource \"aws_key_pair\" \"ci\" {{\n  key_name   = \"ci\"\n  public_key = \"{k}\"\n}}", [k]))(V.ssh_pub_rsa(r, "ci")),
        lambda r: (lambda k: ("chat", "ko", f"준서: 깃랩에 올릴 공개키예요\n{k}", [k]))(V.ssh_pub_ed25519(r, "junseo@work")),
    ),
}


def cert(r):
    return "-----BEGIN CERTIFICATE-----\n" + "\n".join(V.wrap64(V.b64(b"\x30\x82\x03\x5d\x30\x82\x02\x45\xa0\x03\x02\x01\x02" + V.rbytes(r, 600)))) + "\n-----END CERTIFICATE-----"


K["neg-pem-public-key"] = {
    "A": one(
        lambda r: (lambda k: ("pem", "en", f"JWT verification key (public, safe to share):\n{k}", [k]))(V.pem_public(r)),
        lambda r: (lambda c: ("pem", "en", f"Root CA for the internal mesh:\n{c}", [c]))(cert(r)),
        lambda r: (lambda k: ("pem", "ko", f"서명 검증용 공개키입니다.\n{k}", [k]))(V.pem_public(r)),
    ),
    "B": one(
        lambda r: (lambda c: ("yaml", "en", "tls:\n  ca.crt: |\n" + "\n".join("    " + l for l in c.split("\n")), ["\n".join("    " + l for l in c.split("\n"))]))(cert(r)),
        lambda r: (lambda k: ("json", "en", f"{{\"kid\": \"{rs(r, B64URL, 16)}\", \"public_key_pem\": \"{k.replace(chr(10), chr(92) + 'n')}\"}}", [k.replace(chr(10), chr(92) + 'n')]))(V.pem_public(r)),
        lambda r: (lambda c: ("pem", "ko", f"갱신된 서버 인증서(공개) 첨부합니다.\n{c}", [c]))(cert(r)),
    ),
}


def ac(r):
    return "AC" + rs(r, HEX, 32)


K["neg-twilio-sid"] = {
    "A": one(
        lambda r: (lambda a: ("prose", "en", f"SMS are sent from the Twilio account {a}; the auth token lives in Vault.", [a]))(ac(r)),
        lambda r: (lambda a, m: ("log", "en", f"twilio: message queued account_sid={a} messaging_service_sid={m} status=queued", [a, m]))(ac(r), "MG" + rs(r, HEX, 32)),
        lambda r: (lambda a: ("prose", "ko", f"트윌리오 계정 SID 는 {a} 입니다 (토큰은 볼트에 있음).", [a]))(ac(r)),
    ),
    "B": one(
        lambda r: (lambda a: ("dotenv", "en", f"TWILIO_ACCOUNT_SID={a}\nTWILIO_AUTH_TOKEN=${{TWILIO_AUTH_TOKEN}}", [a, "${TWILIO_AUTH_TOKEN}"]))(ac(r)),
        lambda r: (lambda a, p: ("json", "en", f"{{\"account_sid\": \"{a}\", \"sid\": \"{p}\", \"phone_number\": \"+15005550006\"}}", [a, p]))(ac(r), "PN" + rs(r, HEX, 32)),
        lambda r: (lambda a: ("chat", "ko", f"다빈: 어느 계정으로 보내요?\n시우: {a} 요", [a]))(ac(r)),
    ),
}


def pk(r):
    return "pk_live_51" + rs(r, ALNUM, 97)


K["neg-stripe-publishable"] = {
    "A": one(
        lambda r: (lambda k: ("code", "en", f"const stripe = Stripe('{k}');\nconst elements = stripe.elements();", [k]))(pk(r)),
        lambda r: (lambda k: ("dotenv", "en", f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={k}\nSTRIPE_SECRET_KEY=${{STRIPE_SECRET_KEY}}", [k, "${STRIPE_SECRET_KEY}"]))(pk(r)),
        lambda r: (lambda k: ("prose", "ko", f"프론트에는 publishable key({k})만 넣으면 됩니다.", [k]))(pk(r)),
    ),
    "B": one(
        lambda r: (lambda k: ("json", "en", f"{{\"stripe\": {{\"publishableKey\": \"{k}\"}}}}", [k]))(pk(r)),
        lambda r: (lambda k: ("code", "en", f"<script>window.STRIPE_PK = \"{k}\";</script>", [k]))(pk(r)),
        lambda r: (lambda k: ("chat", "ko", f"윤서: 이거 노출돼도 돼요? {k}\n건희: pk 라서 공개용이에요", [k]))(pk(r)),
    ),
}

K["neg-password-prose"] = {
    "A": one(
        lambda r: ("prose", "en", "If you forgot it, reset your password in Settings → Security; support can't see it.", []),
        lambda r: ("prose", "en", "The password field must not be empty, and the API returns 422 when it is.", []),
        lambda r: ("commit", "en", "fix(auth): never log the password or token on failed login\n\nMasks both in the request logger.", []),
        lambda r: ("prose", "ko", "비밀번호 변경 후에는 모든 세션이 로그아웃됩니다.", []),
    ),
    "B": one(
        lambda r: ("prose", "en", "Password: ask in #infra-oncall, it rotates weekly.", []),
        lambda r: ("prose", "en", "We moved the API token out of the repo; see the secrets runbook for where it lives now.", []),
        lambda r: ("commit", "en", "feat: add token refresh endpoint\n\nAccess tokens now expire after 15 minutes.", []),
        lambda r: ("prose", "ko", "토큰이 만료되면 401 이 반환되니 재발급 API 를 호출하세요.", []),
    ),
}

K["neg-password-policy"] = {
    "A": one(
        lambda r: ("prose", "en", "Passwords must be at least 12 characters and include one of ! @ # $ % ^ & * and a digit.", []),
        lambda r: ("yaml", "en", "password_policy:\n  min_length: 14\n  require_symbols: true\n  max_age_days: 90\n  history: 5", []),
        lambda r: ("prose", "ko", "비밀번호는 12자 이상, 영문 대소문자·숫자·특수문자(!@#$%^&*)를 포함해야 합니다.", []),
    ),
    "B": one(
        lambda r: ("code", "en", "PASSWORD_REGEX = r\"^(?=.*[A-Z])(?=.*\\d)(?=.*[!@#$%^&*]).{12,}$\"", []),
        lambda r: ("prose", "en", "Tokens are 40 characters long and start with a four-letter prefix; we never store them in plain text.", []),
        lambda r: ("prose", "ko", "API 키는 90일마다 만료되며, 만료 7일 전에 메일로 알림이 갑니다.", []),
    ),
}

K["neg-redacted"] = {
    "A": one(
        lambda r: ("log", "en", "DEBUG connecting to postgres://app:****@db-prod-1.internal:5432/billing", ["****"]),
        lambda r: ("log", "en", "INFO outgoing headers: {'Authorization': 'Bearer [REDACTED]', 'Accept': 'application/json'}", ["[REDACTED]"]),
        lambda r: ("dotenv", "en", "AWS_SECRET_ACCESS_KEY=****************************************", ["****************************************"]),
        lambda r: ("prose", "ko", "로그에는 password=<secret> 처럼 마스킹되어 남습니다.", ["<secret>"]),
    ),
    "B": one(
        lambda r: ("json", "en", "{\"user\": \"kim\", \"password\": \"[FILTERED]\", \"remember_me\": true}", ["[FILTERED]"]),
        lambda r: ("log", "en", "token=sk-...a1b2 (masked) accepted for project web", ["sk-...a1b2"]),
        lambda r: ("yaml", "en", "db:\n  password: \"<redacted>\"\n  user: app", ["<redacted>"]),
        lambda r: ("prose", "ko", "공유된 설정에서 비밀번호는 ******** 로 가려져 있어요.", ["********"]),
    ),
}

K["neg-config-keys"] = {
    "A": one(
        lambda r: ("dotenv", "en", "# required\nDATABASE_URL=\nSTRIPE_SECRET_KEY=\nSENTRY_DSN=", []),
        lambda r: ("yaml", "en", "auth:\n  client_id: \"\"\n  client_secret: \"\"   # set via helm --set\n  token_ttl: 3600", []),
        lambda r: ("prose", "ko", "설정 키 목록: DB_PASSWORD, REDIS_PASSWORD, JWT_SECRET (값은 각 환경에서 주입)", []),
    ),
    "B": one(
        lambda r: ("ini", "en", "[smtp]\nhost = smtp.example.com\nport = 587\nuser =\npassword =", []),
        lambda r: ("toml", "en", "[auth]\n# token = \"\"  (provided by the CLI login flow)\nendpoint = \"https://auth.example.com\"", []),
        lambda r: ("prose", "ko", "필요한 환경변수는 OPENAI_API_KEY 와 SLACK_BOT_TOKEN 두 개입니다.", []),
    ),
}

K["neg-gpg-fingerprint"] = {
    "A": one(
        lambda r: (lambda f: ("shell", "en", f"gpg --keyserver keys.openpgp.org --recv-keys {f}", [f]))(rs(r, HEX.upper(), 40)),
        lambda r: (lambda f: ("prose", "ko", f"릴리스 서명 키 지문: {f}", [f]))(" ".join(V.wrap64(rs(r, HEX.upper(), 40), 4))),
    ),
    "B": one(
        lambda r: (lambda f: ("log", "en", f"gpg: Signature made Sun 29 Nov 2026 10:00:00 KST\ngpg:                using RSA key {f}\ngpg: Good signature from \"Acme Release <release@example.com>\"", [f]))(rs(r, HEX.upper(), 40)),
        lambda r: (lambda f: ("prose", "ko", f"signing key ID 는 {f} 입니다 (공개키).", [f]))(rs(r, HEX.upper(), 16)),
    ),
}

# ---------------------------------------------------------------- flags that look like secret flags but carry none
K["neg-cli-flags"] = {
    "A": one(
        lambda r: ("shell", "en", f"ssh -p {r.choice([2222, 22022, 8022])} -i ~/.ssh/id_ed25519 deploy@bastion-01.prod.internal", []),
        lambda r: ("shell", "en", "docker run -d -p 5432:5432 -e POSTGRES_PASSWORD_FILE=/run/secrets/pg_pw postgres:16", []),
        lambda r: ("shell", "en", "mysql -u root -p   # prompts for the password, nothing stored in history", []),
        lambda r: ("shell", "ko", "# 비밀번호는 프롬프트로 입력\ncat ~/.registry_pw | docker login -u ci --password-stdin registry.example.com", []),
    ),
    "B": one(
        lambda r: ("shell", "en", "SSHPASS is read from the environment: sshpass -e ssh ops@10.0.12.7", []),
        lambda r: ("shell", "en", "psql -h db-replica-2.acme.local -U app -W orders   # -W forces a password prompt", []),
        lambda r: ("shell", "en", f"kubectl port-forward svc/redis {r.choice([6379, 16379])}:6379 -n cache && redis-cli -p 6379 PING", []),
        lambda r: ("shell", "ko", "# 토큰은 파일로 전달\ngh auth login --with-token < ~/.config/gh/token.txt", []),
    ),
}


def gclient(r):
    return f"{rs(r, DIG, 12)}-{rs(r, LO + DIG, 32)}.apps.googleusercontent.com"


K["neg-public-client-id"] = {
    "A": one(
        lambda r: (lambda c: ("code", "en", f"<div id=\"g_id_onload\" data-client_id=\"{c}\" data-login_uri=\"https://app.example.com/auth/callback\"></div>", [c]))(gclient(r)),
        lambda r: (lambda c: ("json", "en", f"{{\"auth0\": {{\"domain\": \"acme.eu.auth0.com\", \"clientId\": \"{c}\", \"audience\": \"https://api.example.com\"}}}}", [c]))(rs(r, ALNUM, 32)),
        lambda r: (lambda c: ("prose", "ko", f"OAuth 클라이언트 ID 는 {c} 입니다 (공개값, 시크릿은 별도 보관).", [c]))(gclient(r)),
    ),
    "B": one(
        lambda r: (lambda c: ("dotenv", "en", f"NEXT_PUBLIC_GOOGLE_CLIENT_ID={c}\nGOOGLE_CLIENT_SECRET=", [c]))(gclient(r)),
        lambda r: (lambda c: ("yaml", "en", f"oidc:\n  issuer: https://acme.okta.com/oauth2/default\n  client_id: {c}\n  scopes: [openid, profile, email]", [c]))("0oa" + rs(r, ALNUM, 17)),
        lambda r: (lambda c: ("chat", "ko", f"서준: 앱 클라이언트 ID 뭐예요?\n하윤: {c} 요. 이건 공개돼도 괜찮아요", [c]))(gclient(r)),
    ),
}


def addr(r):
    return "0x" + rs(r, HEX, 12)


K["neg-stack-trace"] = {
    "A": one(
        lambda r: ("log", "en", f"panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc={addr(r)}]\n\ngoroutine 42 [running]:\nmain.(*TokenCache).Get(0xc000{rs(r, HEX, 6)}, {{0xc00001e0c0, 0x24}})\n\t/src/cache.go:88 +0x{rs(r, HEX, 2)}", []),
        lambda r: ("log", "en", "Traceback (most recent call last):\n  File \"/app/auth.py\", line 41, in verify\n    payload = jwt.decode(token, key, algorithms=[\"RS256\"])\njwt.exceptions.ExpiredSignatureError: Signature has expired", []),
        lambda r: ("log", "ko", "[에러] 비밀번호 검증 중 예외 발생\njava.lang.IllegalArgumentException: Invalid salt version\n\tat org.mindrot.jbcrypt.BCrypt.hashpw(BCrypt.java:665)", []),
    ),
    "B": one(
        lambda r: ("log", "en", "Exception in thread \"main\" javax.crypto.BadPaddingException: Given final block not properly padded\n\tat com.sun.crypto.provider.CipherCore.unpad(CipherCore.java:975)\n\tat com.acme.secrets.Decryptor.decrypt(Decryptor.java:52)", []),
        lambda r: ("log", "en", f"thread 'main' panicked at src/auth.rs:77:14:\ncalled `Option::unwrap()` on a `None` value (token missing from header)\nnote: run with `RUST_BACKTRACE=1`", []),
        lambda r: ("log", "ko", "[오류] 토큰 파싱 실패\nError: jwt malformed\n    at Object.module.exports [as verify] (/app/node_modules/jsonwebtoken/verify.js:70:17)", []),
    ),
}


# ---------------------------------------------------------------- more variety for the text-only kinds
NAMES_EN = ["dana", "raj", "kate", "tom", "lee", "priya", "mike", "ana"]
NAMES_KO = ["민지", "현우", "지수", "태호", "수빈", "도윤", "은비", "서연"]
SVC = ["billing", "search", "auth", "reports", "checkout", "media"]


def _n(r):
    return r.randrange(2, 40)


def s(form, lang, text, pub=()):
    return lambda r: (form, lang, text(r) if callable(text) else text, list(pub))


K["neg-code"]["A"] += [
    s("code", "en", lambda r: f"def rotate_{r.choice(SVC)}_key(client):\n    new_key = client.create_key()\n    vault.write(path=\"kv/{r.choice(SVC)}\", value=new_key)\n    return new_key.id"),
    s("code", "en", lambda r: f"if (password.length < {r.choice([10, 12, 14])}) {{\n  errors.push('password too short');\n}}"),
    s("code", "en", "type Credentials struct {\n\tUsername string `json:\"username\"`\n\tPassword string `json:\"password\"`\n\tToken    string `json:\"token,omitempty\"`\n}"),
    s("code", "ko", lambda r: f"// {r.choice(NAMES_KO)}: API 키는 생성자에서 주입받도록 변경\nconstructor(private readonly apiKey: string) {{}}"),
    s("code", "en", lambda r: f"@app.post(\"/login\")\ndef login(form: LoginForm):\n    user = users.get(form.username)\n    if not user or not verify(form.password, user.pw_hash):\n        raise HTTPException({r.choice([401, 403])})"),
    s("code", "en", "const { data: { session } } = await supabase.auth.getSession();\nconst accessToken = session?.access_token;"),
]
K["neg-code"]["B"] += [
    s("code", "en", lambda r: f"func loadToken(path string) (string, error) {{\n\tb, err := os.ReadFile(path) // e.g. /var/run/secrets/{r.choice(SVC)}/token\n\treturn strings.TrimSpace(string(b)), err\n}}"),
    s("code", "en", "def mask(secret: str) -> str:\n    return secret[:4] + \"…\" if secret else \"\""),
    s("code", "en", lambda r: f"services.AddAuthentication().AddJwtBearer(o => o.Authority = \"https://{r.choice(SVC)}.example.com\");"),
    s("code", "ko", lambda r: f"# {r.choice(NAMES_KO)}: 비밀번호 재설정 토큰 만료 시간 {r.choice([15, 30, 60])}분\nRESET_TOKEN_TTL = timedelta(minutes={r.choice([15, 30, 60])})"),
    s("code", "en", "password = request.form.get(\"password\", \"\")\nif not password:\n    flash(\"Please enter a password\")"),
    s("code", "en", lambda r: f"token := r.Header.Get(\"Authorization\")\nif !strings.HasPrefix(token, \"Bearer \") {{\n\thttp.Error(w, \"unauthorized\", {r.choice([401, 403])})\n\treturn\n}}"),
]
K["neg-ko-prose"]["A"] += [
    s("prose", "ko", lambda r: f"{r.choice(NAMES_KO)}님, 토큰 재발급은 관리자 콘솔 > API 키 메뉴에서 하시면 됩니다."),
    s("prose", "ko", lambda r: f"비밀번호를 {r.choice([3, 5])}회 이상 틀리면 계정이 {r.choice([10, 30])}분간 잠깁니다."),
    s("chat", "ko", lambda r: f"{r.choice(NAMES_KO)}: 스테이징 DB 접속 정보 어디서 봐요?\n{r.choice(NAMES_KO)}: 볼트 kv/staging/db 경로에 있어요"),
    s("prose", "ko", lambda r: f"시크릿 키가 로그에 찍히지 않도록 마스킹 처리했습니다 (PR #{r.randrange(100, 999)})."),
    s("prose", "ko", "액세스 토큰은 1시간, 리프레시 토큰은 14일 동안 유효합니다."),
    s("prose", "ko", lambda r: f"{r.choice(SVC)} 서비스 암호 정책이 바뀌어서 다음 로그인 때 비밀번호 변경 화면이 뜹니다."),
]
K["neg-ko-prose"]["B"] += [
    s("prose", "ko", lambda r: f"API 키가 노출된 것 같으면 즉시 폐기하고 보안팀(#{r.choice(['sec', 'security-ops'])})에 알려주세요."),
    s("chat", "ko", lambda r: f"{r.choice(NAMES_KO)}: 비번 공유 좀 해주실 수 있나요?\n{r.choice(NAMES_KO)}: 슬랙으로는 안 되고 1Password 로 공유할게요"),
    s("prose", "ko", lambda r: f"토큰 권한은 read:packages 만 주면 충분합니다. 만료는 {r.choice([30, 60, 90])}일로 설정하세요."),
    s("prose", "ko", "암호화 키는 KMS 에서 관리되며 애플리케이션은 키 ID 만 알고 있습니다."),
    s("prose", "ko", lambda r: f"비밀번호 입력란이 비어 있으면 {r.choice([400, 422])} 에러가 납니다."),
    s("prose", "ko", lambda r: f"인증서 비밀키는 서버에만 있고, 저장소에는 공개 인증서만 커밋합니다 ({r.choice(SVC)} 팀 규칙)."),
]
K["neg-password-prose"]["A"] += [
    s("prose", "en", lambda r: f"{r.choice(NAMES_EN).capitalize()} asked for the staging password; I pointed them to the vault entry instead."),
    s("prose", "en", lambda r: f"Tokens created before {r.choice(['March', 'June', 'October'])} must be regenerated because the scope model changed."),
    s("chat", "en", lambda r: f"[{r.randrange(9, 18)}:{r.randrange(10, 59)}] {r.choice(NAMES_EN)}: what's the admin password?\n[{r.randrange(9, 18)}:{r.randrange(10, 59)}] {r.choice(NAMES_EN)}: not in chat please, it's in 1Password"),
    s("prose", "en", lambda r: f"The API key is passed as the X-Api-Key header; requests without it get a {r.choice([401, 403])}."),
    s("commit", "en", lambda r: f"chore(security): rotate all {r.choice(SVC)} tokens after the incident\n\nNo values in this commit; see runbook RB-{r.randrange(10, 99)}."),
    s("prose", "en", "Your password was changed successfully. If this wasn't you, contact support."),
]
K["neg-password-prose"]["B"] += [
    s("prose", "en", lambda r: f"Secret rotation for {r.choice(SVC)} is automated every {r.choice([30, 60, 90])} days; nobody needs to know the value."),
    s("chat", "en", lambda r: f"<{r.choice(NAMES_EN)}> can you DM me the token?\n<{r.choice(NAMES_EN)}> no, request access in the portal and it shows up in your env"),
    s("prose", "en", "Enter your password to confirm. For security, we never email passwords."),
    s("commit", "en", lambda r: f"fix: redact Authorization header in debug logs (#{r.randrange(1000, 9999)})"),
    s("prose", "en", lambda r: f"The webhook secret is generated when you create the endpoint; copy it from the dashboard (it is shown only once)."),
    s("prose", "en", lambda r: f"Password managers are mandatory from Q{r.randrange(1, 5)}; shared spreadsheets with credentials will be deleted."),
]
K["neg-password-policy"]["A"] += [
    s("prose", "en", lambda r: f"API tokens expire after {r.choice([30, 60, 90])} days; service accounts may request up to 365."),
    s("json", "en", lambda r: f"{{\"minLength\": {r.choice([10, 12, 16])}, \"requireUppercase\": true, \"requireSymbols\": true, \"allowedSymbols\": \"!@#$%^&*()-_=+\"}}"),
    s("prose", "ko", lambda r: f"초기 비밀번호는 사용자가 첫 로그인 시 반드시 변경해야 하며, 최근 {r.choice([3, 5])}개와 같은 비밀번호는 쓸 수 없습니다."),
    s("yaml", "en", lambda r: f"token_policy:\n  ttl: {r.choice([1, 4, 8])}h\n  max_ttl: 720h\n  renewable: true"),
    s("prose", "en", "Avoid characters like # and ? in database passwords used inside URLs unless you percent-encode them."),
]
K["neg-password-policy"]["B"] += [
    s("prose", "en", lambda r: f"Passphrases of four or more random words are allowed; the minimum is {r.choice([16, 20])} characters."),
    s("ini", "en", lambda r: f"[password_policy]\nminlen = {r.choice([12, 14])}\ndcredit = -1\nocredit = -1\nucredit = -1"),
    s("prose", "ko", lambda r: f"토큰 발급 시 권한 범위를 최소화하고, 유효기간은 최대 {r.choice([30, 90])}일로 제한합니다."),
    s("hcl", "en", lambda r: f"resource \"aws_iam_account_password_policy\" \"strict\" {{\n  minimum_password_length = {r.choice([14, 16])}\n  require_symbols         = true\n  max_password_age        = 90\n}}"),
    s("prose", "en", "Keys must be generated with at least 2048-bit RSA or P-256; private keys never leave the HSM."),
]
K["neg-redacted"]["A"] += [
    s("log", "en", lambda r: f"INFO  config loaded: db.password=<hidden> redis.password=<hidden> ({r.randrange(10, 60)} keys)", ["<hidden>"]),
    s("shell", "en", lambda r: "$ heroku config:get DATABASE_URL --app acme-{}\npostgres://u:••••••••@ec2-host.compute-1.amazonaws.com:5432/d".format(r.choice(SVC)), ["••••••••"]),
    s("yaml", "en", "stringData:\n  api_key: \"***\"   # real value injected by sealed-secrets", ["***"]),
    s("prose", "en", lambda r: f"The leaked token (ghp_…{rs(r, ALNUM, 4)}) was revoked within 3 minutes.", []),
]
K["neg-redacted"]["B"] += [
    s("log", "en", lambda r: f"request: POST /v1/login body={{\"username\":\"{r.choice(NAMES_EN)}\",\"password\":\"[MASKED]\"}}", ["[MASKED]"]),
    s("dotenv", "en", "SLACK_BOT_TOKEN=xoxb-****\nSTRIPE_SECRET_KEY=sk_live_****", ["xoxb-****", "sk_live_****"]),
    s("prose", "en", lambda r: f"Please paste configs with secrets replaced by <redacted>; e.g. password: <redacted>.", ["<redacted>"]),
    s("log", "ko", lambda r: f"[경고] 설정 파일에서 평문 비밀번호 감지 → 값은 '***' 로 마스킹됨 (line {r.randrange(5, 90)})", ["***"]),
]
K["neg-config-keys"]["A"] += [
    s("yaml", "en", lambda r: f"secrets:\n  - name: DB_PASSWORD\n    from: vault\n  - name: {r.choice(['API_TOKEN', 'JWT_SECRET', 'SMTP_PASSWORD'])}\n    from: vault"),
    s("ini", "en", "[auth]\n; password =\n; token =\nmethod = oidc"),
    s("dotenv", "ko", "# 값은 각자 채우기\nOPENAI_API_KEY=\nANTHROPIC_API_KEY="),
    s("json", "en", lambda r: f"{{\"required_env\": [\"DATABASE_URL\", \"SECRET_KEY\", \"{r.choice(['SENTRY_DSN', 'STRIPE_SECRET_KEY'])}\"], \"optional_env\": [\"LOG_LEVEL\"]}}"),
]
K["neg-config-keys"]["B"] += [
    s("hcl", "en", lambda r: f"variable \"db_password\" {{\n  type      = string\n  sensitive = true\n  # no default: pass with -var or TF_VAR_db_password\n}}"),
    s("yaml", "en", "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api-creds\n        key: token"),
    s("ini", "ko", "; 운영 값은 배포 파이프라인이 채움\n[redis]\npassword =\nhost = redis.internal"),
    s("toml", "en", lambda r: f"[secrets]\nprovider = \"aws-secretsmanager\"\nkeys = [\"db/password\", \"{r.choice(SVC)}/api_token\"]"),
]
K["neg-docs-example"]["A"] += [
    s("prose", "en", "In the tutorial, replace YOUR_API_KEY in https://api.example.com/v1/search?q=test&key=YOUR_API_KEY with your own key.", ["YOUR_API_KEY"]),
    s("yaml", "en", "# example from the chart README\nauth:\n  username: user\n  password: password123-example", ["password123-example"]),
    s("shell", "ko", "# 문서 예제 그대로 (실제 값 아님)\nexport TOKEN=<토큰을-여기에>", ["<토큰을-여기에>"]),
]
K["neg-docs-example"]["B"] += [
    s("prose", "en", "The OpenAPI spec's example header is `Authorization: Bearer <token>`; the real token comes from /oauth/token.", ["<token>"]),
    s("code", "en", "# from the SDK README\nclient = Client(api_key=\"YOUR_API_KEY\", region=\"eu\")", ["YOUR_API_KEY"]),
    s("prose", "ko", "튜토리얼의 mongodb://<username>:<password>@localhost 부분은 자리표시자이니 바꿔서 쓰세요.", ["<username>", "<password>"]),
]
K["neg-cli-flags"]["A"] += [
    s("shell", "en", lambda r: f"redis-cli -h cache.internal -p {r.choice([6379, 6380])} --askpass INFO memory"),
    s("shell", "en", lambda r: f"curl -u {r.choice(NAMES_EN)} https://nexus.example.com/service/rest/v1/status   # curl prompts for the password"),
    s("flag", "en", lambda r: f"vault login -method=oidc role={r.choice(SVC)}-dev"),
]
K["neg-cli-flags"]["B"] += [
    s("flag", "en", lambda r: f"aws configure set region ap-northeast-{r.choice([1, 2, 3])} --profile {r.choice(SVC)}"),
    s("shell", "en", lambda r: f"mysqldump --defaults-extra-file=/etc/mysql/backup.cnf {r.choice(['orders', 'crm'])} > backup.sql"),
    s("flag", "en", "npm login --registry=https://npm.example.com --auth-type=web"),
]
K["neg-stack-trace"]["B"] += [
    s("log", "en", lambda r: f"psycopg2.OperationalError: connection to server at \"db-{r.randrange(1, 9)}.internal\" (10.0.{r.randrange(1, 9)}.{r.randrange(2, 250)}), port 5432 failed: FATAL:  password authentication failed for user \"app\""),
    s("log", "en", lambda r: f"botocore.exceptions.ClientError: An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security token included in the request is invalid. (request id {V.uuid4(r)})"),
]
