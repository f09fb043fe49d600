"""Generic sentence banks. Bank A -> world-c (tuning), bank B -> world-holdout2.

Each entry: (form, styles, template). styles: '*' any, or letters T (bearer-able token),
K (key, no bearer), U (URL-shaped value). <<FIELD>> markers are filled by generate.py.
"""

TOK = {
    "A": {
        "en": [
            ("prose", "*", "Rotated the <<VENDOR>> credential this morning. New value is <<V>> — please update your local env before the 3pm deploy."),
            ("shell", "*", "$ export <<ENV>>=<<V>>\n$ ./scripts/deploy.sh --env staging\nDeploying to staging... done"),
            ("dotenv", "*", "# .env.local (do not commit)\nAPP_ENV=development\nPORT=8080\n<<ENV>>=<<V>>\nLOG_LEVEL=debug"),
            ("yaml", "*", "# .github/workflows/e2e.yml\njobs:\n  e2e:\n    runs-on: ubuntu-latest\n    env:\n      NODE_ENV: test\n      <<ENV>>: \"<<V>>\"\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm ci && npm run e2e"),
            ("json", "*", "{\n  \"service\": \"<<SVC>>\",\n  \"region\": \"eu-west-1\",\n  \"<<KEY>>\": \"<<V>>\",\n  \"timeout_ms\": 3000\n}"),
            ("code", "TK", "import requests\n\n<<CONST>> = \"<<V>>\"  # TODO: move to secret manager\n\ndef fetch(path):\n    return requests.get(f\"https://<<HOST>>{path}\", headers={\"Authorization\": f\"Bearer {<<CONST>>}\"}, timeout=10)"),
            ("shell", "T", "curl -sS https://<<HOST>>/v1/me \\\n  -H \"Authorization: Bearer <<V>>\" \\\n  -H 'Accept: application/json'"),
            ("log", "*", "2026-11-30T08:12:44.913Z WARN  [<<SVC>>] upstream 401, retrying with <<KEY>>=<<V>> (attempt 2/5)"),
            ("chat", "*", "[10:42] dana: anyone have the <<VENDOR>> key for the sandbox?\n[10:43] mike: <<V>>\n[10:43] mike: rotate it after the demo pls"),
            ("commit", "*", "commit <<SHA>>\nAuthor: build-bot <ci@example.com>\n\n    chore: temporary <<VENDOR>> creds for smoke tests\n\n    <<ENV>>=<<V>>\n    (will revert once vault access is sorted)"),
            ("code", "*", "FROM node:20-alpine\nWORKDIR /app\nCOPY . .\nENV <<ENV>>=<<V>>\nRUN npm ci --omit=dev\nCMD [\"node\", \"server.js\"]"),
            ("hcl", "*", "variable \"<<KEY>>\" {\n  type      = string\n  sensitive = true\n  default   = \"<<V>>\"\n}"),
            ("code", "*", "package main\n\nimport \"os\"\n\nfunc init() {\n\tif os.Getenv(\"<<ENV>>\") == \"\" {\n\t\tos.Setenv(\"<<ENV>>\", \"<<V>>\")\n\t}\n}"),
            ("code", "*", "const <<CAMEL>> = <<JSREF>> || \"<<V>>\";\nmodule.exports = { <<CAMEL>> };"),
        ],
        "ko": [
            ("prose", "*", "<<VENDOR>> 토큰 새로 발급했어요: <<V>> 로컬 .env에 넣고 재시작하면 됩니다."),
            ("chat", "*", "[오전 10:12] 지훈: <<VENDOR>> 키 어디 있어요?\n[오전 10:13] 수빈: <<V>>\n[오전 10:13] 수빈: 데모 끝나면 폐기할게요"),
            ("shell", "*", "# 운영 서버에서 실행 (배포 전 확인)\nexport <<ENV>>=\"<<V>>\"  # 만료일 확인 필요\nsystemctl restart <<SVC>>"),
            ("prose", "*", "스테이징 배포용 <<ENV>> 값은 <<V>> 입니다. 외부 공유 금지!"),
        ],
    },
    "B": {
        "en": [
            ("prose", "*", "FYI the <<VENDOR>> credential for the nightly job lives here until we wire up the secret store: <<V>>."),
            ("yaml", "*", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: <<SVC>>-creds\n  namespace: prod\ntype: Opaque\nstringData:\n  <<KEY>>: \"<<V>>\""),
            ("toml", "*", "[integrations.<<SLUG>>]\nenabled = true\n<<KEY>> = \"<<V>>\"\nretries = 3"),
            ("ini", "*", "[<<SLUG>>]\nendpoint = https://<<HOST>>\n<<KEY>> = <<V>>\ntimeout = 15"),
            ("code", "*", "public final class <<CLASS>>Config {\n    private static final String <<CONST>> = \"<<V>>\";\n    public static String key() { return <<CONST>>; }\n}"),
            ("code", "*", "# config/initializers/<<SLUG>>.rb\nENV[\"<<ENV>>\"] ||= \"<<V>>\""),
            ("code", "*", "let token = std::env::var(\"<<ENV>>\")\n    .unwrap_or_else(|_| \"<<V>>\".to_string());"),
            ("code", "T", "using var http = new HttpClient();\nhttp.DefaultRequestHeaders.Add(\"X-Api-Key\", \"<<V>>\");\nvar resp = await http.GetAsync(\"https://<<HOST>>/v2/status\");"),
            ("log", "TK", "Traceback (most recent call last):\n  File \"/srv/app/sync.py\", line 88, in push\n    resp.raise_for_status()\nrequests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://<<HOST>>/v2/items?api_key=<<V>>&page=2"),
            ("systemd", "*", "[Service]\nUser=<<SLUG>>\nEnvironment=\"<<ENV>>=<<V>>\"\nExecStart=/usr/local/bin/<<SLUG>>-agent --config /etc/<<SLUG>>/agent.yml\nRestart=on-failure"),
            ("makefile", "*", "<<ENV>> ?= <<V>>\n\nrelease:\n\t./bin/publish --env prod --token <<MKREF>>"),
            ("shell", "*", "  511  cd ~/src/<<SLUG>>-sync\n  512  <<ENV>>='<<V>>' npm run release\n  513  history | tail -n 3"),
            ("log", "T", "{\"level\":\"debug\",\"ts\":\"2026-11-29T23:01:07Z\",\"msg\":\"outgoing request\",\"method\":\"POST\",\"url\":\"https://<<HOST>>/v1/events\",\"headers\":{\"authorization\":\"Bearer <<V>>\"}}"),
            ("chat", "*", "<alex> the <<VENDOR>> integration is failing again\n<priya> did you set <<ENV>>?\n<alex> yep, <<ENV>>=<<V>>\n<priya> that one was revoked last week lol"),
            ("flag", "*", "docker run --rm -e <<ENV>>=<<V>> ghcr.io/acme/<<SLUG>>-worker:1.8.2 --once"),
        ],
        "ko": [
            ("prose", "*", "참고로 <<VENDOR>> 액세스 토큰은 <<V>> 이고, 다음 주에 교체 예정입니다."),
            ("prose", "*", "토큰 값: <<V>>\n(절대 커밋하지 마세요. 위키에도 올리지 말 것)"),
            ("chat", "*", "@channel <<VENDOR>> 키 유출 의심돼서 회전했습니다. 새 키는 <<V>> 이고 기존 키는 오늘 18시에 폐기됩니다."),
            ("commit", "*", "fix: 배포 스크립트에서 <<ENV>> 못 읽는 문제 임시 해결\n\n하드코딩: <<ENV>>=<<V>>\n추후 Vault로 이전 예정"),
        ],
    },
}

PAIR = {
    "A": {
        "en": [
            ("shell", "*", "export <<IDENV>>=<<ID>>\nexport <<ENV>>=<<V>>\n<<CLI>>"),
            ("ini", "*", "[<<PROFILE>>]\n<<IDKEY>> = <<ID>>\n<<KEY>> = <<V>>"),
            ("prose", "*", "For the <<VENDOR>> sandbox use <<ID>> with secret <<V>>; the prod pair is in the vault."),
            ("json", "*", "{\"<<IDKEY>>\": \"<<ID>>\", \"<<KEY>>\": \"<<V>>\", \"region\": \"ap-northeast-2\"}"),
            ("code", "*", "client = <<CLASS>>Client(\n    <<IDKEY>>=\"<<ID>>\",\n    <<KEY>>=\"<<V>>\",\n)"),
            ("flag", "B", "curl -u <<ID>>:<<V>> https://<<HOST>>/2010-04-01/Accounts.json"),
        ],
        "ko": [
            ("prose", "*", "<<VENDOR>> 접속 정보 공유드립니다. ID: <<ID>> / 시크릿: <<V>> (테스트 계정)"),
            ("chat", "*", "[14:02] 민수: <<VENDOR>> 키 쌍 좀 주세요\n[14:03] 은지: <<IDENV>>=<<ID>>\n[14:03] 은지: <<ENV>>=<<V>>"),
        ],
    },
    "B": {
        "en": [
            ("dotenv", "*", "# worker.env\n<<IDENV>>=\"<<ID>>\"\n<<ENV>>=\"<<V>>\"\nQUEUE=default"),
            ("yaml", "*", "<<SLUG>>:\n  credentials:\n    <<IDKEY>>: <<ID>>\n    <<KEY>>: <<V>>\n  region: ap-northeast-2"),
            ("hcl", "*", "provider \"<<SLUG>>\" {\n  <<IDKEY>> = \"<<ID>>\"\n  <<KEY>>   = \"<<V>>\"\n}"),
            ("prose", "*", "Credentials for the load test (<<VENDOR>>): <<ID>> and <<V>>. Don't reuse them for prod."),
            ("code", "*", "cfg := &Config{\n\t<<CAMELID>>: \"<<ID>>\",\n\t<<CAMELKEY>>: \"<<V>>\",\n}"),
            ("log", "*", "DEBUG credentials resolved from static config: <<IDKEY>>=<<ID>> <<KEY>>=<<V>> source=inline"),
            ("flag", "B", "curl -s --user \"<<ID>>:<<V>>\" https://<<HOST>>/v1/me | jq ."),
        ],
        "ko": [
            ("prose", "*", "<<VENDOR>> 계정 키 정리: 아이디 <<ID>>, 시크릿 키 <<V>> 입니다. 분기마다 교체해요."),
            ("commit", "*", "chore: 임시 <<VENDOR>> 자격증명 추가\n\n<<IDKEY>>: <<ID>>\n<<KEY>>: <<V>>"),
        ],
    },
}
