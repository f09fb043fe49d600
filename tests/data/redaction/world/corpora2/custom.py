"""Structural families (secret recognised by where it stands) with per-bank templates."""
import json
import values as V
from values import rs, ALNUM, HEX, DIG, LO, UP, B64URL
from families import custom, Tok, Pub

HOSTS = ["bastion-01.prod.internal", "10.0.12.7", "db-replica-2.acme.local", "jump.kr-central.example.net", "build-07.ci.internal"]
USERS = ["deploy", "ubuntu", "admin", "ops", "jenkins", "svc_backup", "app_rw", "root"]
DBS = ["orders", "billing", "analytics", "crm", "inventory"]


def P(r, ctx):
    return Tok(V.quote_safe_pw(r, ctx))


def base(r):
    return dict(H=r.choice(HOSTS), U=r.choice(USERS), DB=r.choice(DBS), N=str(r.randrange(2, 9)))


# ---------------------------------------------------------------- prose passwords
def g_prose(r):
    d = base(r)
    d["P"] = P(r, "prose")
    return d


custom("password-prose-en", g_prose, A=[
    ("prose", "en", "pw for the bastion host <<H>> is <<P>> — ask before using it."),
    ("prose", "en", "Login for the staging admin panel: user <<U>>, password <<P>>. Please don't paste it in #general."),
    ("chat", "en", "[09:14] kate: what's the wifi password in the lab?\n[09:15] raj: <<P>>\n[09:15] kate: thx"),
    ("prose", "en", "The root password on <<H>> was reset to <<P>>, rotate after the migration."),
    ("prose", "en", "Note to self: backup box creds <<U>> / <<P>>"),
], B=[
    ("prose", "en", "Heads up, the shared account's passphrase is now <<P>>. Change it on first login."),
    ("chat", "en", "<tom> what did you set as the admin pass on <<H>>?\n<lee> <<P>>\n<tom> ok, storing it in the vault now"),
    ("commit", "en", "docs: add onboarding steps\n\nThe sandbox DB password is <<P>>, ask #infra for prod."),
    ("prose", "en", "If the VPN asks again, the password is <<P>>; username is <<U>>."),
    ("log", "en", "2026-11-28 03:12:01 INFO bootstrap: created user '<<U>>' with temporary password <<P>> (expires in 24h)"),
])


custom("password-prose-ko", g_prose, A=[
    ("prose", "ko", "관리자 암호: <<P>>"),
    ("prose", "ko", "운영 DB 비밀번호는 <<P>> 입니다. 외부 유출 주의해주세요."),
    ("chat", "ko", "[오후 2:31] 민지: <<H>> 접속 비번 뭐였죠?\n[오후 2:32] 현우: <<P>>\n[오후 2:32] 민지: 감사합니다!"),
    ("prose", "ko", "스테이징 계정 정보 — 아이디: <<U>>, 비밀번호: <<P>>"),
    ("prose", "ko", "<<H>> 루트 암호를 <<P>> 로 바꿨어요. 마이그레이션 끝나면 다시 변경 예정."),
], B=[
    ("prose", "ko", "임시 비밀번호는 <<P>> 이고, 첫 로그인 때 꼭 바꿔주세요."),
    ("chat", "ko", "지수: 백업 서버 계정 공유 부탁드려요\n태호: <<U>> / <<P>> 입니다"),
    ("prose", "ko", "공용 계정 암호는 <<P>> 입니다. 위키에는 올리지 마세요."),
    ("commit", "ko", "docs: 신규 입사자 가이드 보강\n\n개발 DB 접속 비밀번호: <<P>>"),
    ("prose", "ko", "VPN 비번 바뀌었습니다 → <<P>> (사번으로 로그인)"),
])


# ---------------------------------------------------------------- shell flags
def g_sq(r):
    d = base(r)
    d["P"] = P(r, "sq")
    return d


custom("sshpass", g_sq, A=[
    ("shell", "en", "sshpass -p '<<P>>' ssh -o StrictHostKeyChecking=no <<U>>@<<H>> 'sudo systemctl restart nginx'"),
    ("shell", "en", "for h in $(cat hosts.txt); do sshpass -p '<<P>>' scp build.tar.gz <<U>>@$h:/tmp/; done"),
    ("shell", "ko", "# 배포 서버 일괄 재시작\nsshpass -p '<<P>>' ssh <<U>>@<<H>> uptime"),
    ("yaml", "en", "- name: copy artifacts\n  run: sshpass -p '<<P>>' rsync -az dist/ <<U>>@<<H>>:/srv/www/"),
], B=[
    ("shell", "en", "  204  sshpass -p '<<P>>' ssh -p 2222 <<U>>@<<H>>\n  205  exit"),
    ("code", "en", "subprocess.run([\"sshpass\", \"-p\", \"<<P>>\", \"ssh\", \"<<U>>@<<H>>\", \"df -h\"], check=True)"),
    ("prose", "ko", "점프 서버 들어갈 땐 sshpass -p '<<P>>' ssh <<U>>@<<H>> 로 하시면 됩니다."),
    ("makefile", "en", "sync:\n\tsshpass -p '<<P>>' rsync -e ssh -avz ./public/ <<U>>@<<H>>:/var/www/html"),
])

custom("mysql-cli-password", g_sq, A=[
    ("shell", "en", "mysql -h <<H>> -u <<U>> -p'<<P>>' <<DB>> < migrations/0042_add_index.sql"),
    ("shell", "en", "mysqldump -u<<U>> -p'<<P>>' --single-transaction <<DB>> | gzip > /backup/<<DB>>.sql.gz"),
    ("prose", "ko", "로컬에서 확인하려면 mysql -u <<U>> -p'<<P>>' <<DB>> 실행하세요."),
    ("code", "en", "CMD [\"sh\", \"-c\", \"mysql -h db -u <<U>> -p'<<P>>' -e 'SELECT 1'\"]"),
], B=[
    ("shell", "en", "$ mysqladmin -u <<U>> --password='<<P>>' -h <<H>> status"),
    ("log", "en", "[cron] 02:00 running: mysqldump --user=<<U>> --password='<<P>>' <<DB>> > /var/backups/<<DB>>.sql"),
    ("chat", "ko", "슬기: 리포트 쿼리 어떻게 돌려요?\n준호: mysql -u<<U>> -p'<<P>>' -h <<H>> <<DB>> 로 붙으면 돼요"),
    ("yaml", "en", "healthcheck:\n  test: [\"CMD-SHELL\", \"mysqladmin ping -u <<U>> -p'<<P>>'\"]\n  interval: 10s"),
])


def g_pg(r):
    d = base(r)
    d["P"] = P(r, "sq")
    return d


custom("pgpassword-env", g_pg, A=[
    ("shell", "en", "PGPASSWORD='<<P>>' psql -h <<H>> -U <<U>> -d <<DB>> -c '\\dt'"),
    ("shell", "en", "export PGPASSWORD='<<P>>'\npg_dump -h <<H>> -U <<U>> <<DB>> > dump.sql"),
    ("prose", "ko", "복구 테스트는 PGPASSWORD='<<P>>' pg_restore -h <<H>> -U <<U>> -d <<DB>> latest.dump 로 진행했습니다."),
    ("yaml", "en", "services:\n  migrate:\n    image: postgres:16\n    environment:\n      PGPASSWORD: '<<P>>'\n    command: psql -h db -U <<U>> -f /sql/init.sql"),
], B=[
    ("shell", "en", "$ env PGPASSWORD='<<P>>' pgbench -h <<H>> -U <<U>> -c 10 -T 60 <<DB>>"),
    ("code", "en", "os.environ[\"PGPASSWORD\"] = '<<P>>'\nsubprocess.check_call([\"psql\", \"-h\", \"<<H>>\", \"-U\", \"<<U>>\", \"<<DB>>\"])"),
    ("chat", "ko", "은비: 리플리카 덤프 어떻게 떠요?\n도윤: PGPASSWORD='<<P>>' pg_dump -h <<H>> -U <<U>> <<DB>> 하면 돼요"),
    ("dotenv", "en", "PGHOST=<<H>>\nPGUSER=<<U>>\nPGPASSWORD='<<P>>'\nPGDATABASE=<<DB>>"),
])


def g_redis(r):
    d = base(r)
    d["P"] = P(r, "bare")
    return d


custom("redis-cli-auth", g_redis, A=[
    ("shell", "en", "redis-cli -h <<H>> -p 6379 -a <<P>> --no-auth-warning INFO replication"),
    ("shell", "en", "redis-cli -a <<P>> -n 3 KEYS 'session:*' | head"),
    ("prose", "ko", "캐시 비우려면 redis-cli -h <<H>> -a <<P>> FLUSHDB 하시면 됩니다 (운영 주의)."),
    ("yaml", "en", "livenessProbe:\n  exec:\n    command: [\"redis-cli\", \"-a\", \"<<P>>\", \"ping\"]"),
], B=[
    ("shell", "en", "$ redis-cli --tls -h <<H>> --user default --pass <<P>> DBSIZE"),
    ("chat", "ko", "가은: 세션 키 확인 좀\n승민: redis-cli -h <<H>> -a <<P>> --scan --pattern 'sess:*'"),
    ("code", "en", "r = redis.Redis(host=\"<<H>>\", port=6379, password=\"<<P>>\", db=0)"),
    ("shell", "en", "  88  redis-cli -h <<H>> -a <<P>> CONFIG GET maxmemory"),
])

custom("redis-requirepass", g_redis, A=[
    ("ini", "en", "# /etc/redis/redis.conf\nbind 0.0.0.0\nport 6379\nrequirepass <<P>>\nmaxmemory 2gb"),
    ("shell", "en", "redis-server --appendonly yes --requirepass <<P>>"),
    ("prose", "ko", "redis.conf 에 requirepass <<P>> 추가하고 재시작했습니다."),
    ("yaml", "en", "command: [\"redis-server\", \"--requirepass\", \"<<P>>\"]"),
], B=[
    ("ini", "en", "masterauth <<P>>\nrequirepass <<P>>\nappendonly yes"),
    ("shell", "en", "$ redis-cli CONFIG SET requirepass <<P>>\nOK"),
    ("chat", "ko", "도현: 레디스 비번 설정했어요? \n나래: 네 requirepass <<P>> 로 걸어뒀어요"),
    ("code", "en", "RUN echo \"requirepass <<P>>\" >> /usr/local/etc/redis/redis.conf"),
])


def g_curl(r):
    d = base(r)
    d["P"] = P(r, "sq")
    return d


custom("curl-user-pass", g_curl, A=[
    ("shell", "en", "curl -u <<U>>:'<<P>>' https://nexus.internal.example.net/service/rest/v1/repositories"),
    ("shell", "en", "curl -sk -u '<<U>>:<<P>>' -X PUT https://es.<<H>>:9200/_cluster/settings -d @settings.json"),
    ("prose", "ko", "아티팩트 업로드는 curl -u '<<U>>:<<P>>' -T app.jar https://repo.example.com/releases/ 로 했습니다."),
    ("flag", "en", "wget --user=<<U>> --password='<<P>>' https://files.example.org/dist/agent.tar.gz"),
], B=[
    ("shell", "en", "$ curl --user '<<U>>:<<P>>' https://registry.example.com/v2/_catalog"),
    ("log", "en", "+ curl -fsS -u '<<U>>:<<P>>' https://artifactory.example.com/api/system/ping\nOK"),
    ("chat", "ko", "하늘: 넥서스 API 호출이 401 나요\n진우: curl -u '<<U>>:<<P>>' 로 다시 해보세요"),
    ("code", "en", "resp = requests.get(\"https://grafana.example.net/api/health\", auth=(\"<<U>>\", \"<<P>>\"))"),
])


def g_flag(r):
    d = base(r)
    d["P"] = P(r, "sq")
    return d


custom("cli-password-flag", g_flag, A=[
    ("flag", "en", "argocd login argocd.example.com --username admin --password '<<P>>' --grpc-web"),
    ("flag", "en", "docker login registry.example.com --username <<U>> --password '<<P>>'"),
    ("flag", "ko", "# 테스트용 계정으로 로그인\nhelm registry login harbor.example.kr --username <<U>> --password '<<P>>'"),
    ("flag", "en", "keytool -importcert -file ca.pem -alias internal-ca -keystore truststore.jks -storepass '<<P>>' -noprompt"),
], B=[
    ("flag", "en", "./bin/admin-cli create-user --email ops@example.com --password='<<P>>' --role owner"),
    ("flag", "en", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:'<<P>>'"),
    ("flag", "ko", "로컬에서는 ./gradlew bootRun --args='--spring.datasource.password=<<P>>' 로 띄우세요."),
    ("flag", "en", "mongosh \"mongodb://<<H>>:27017\" --username <<U>> --password '<<P>>' --authenticationDatabase admin"),
])


def g_tokflag(r):
    d = base(r)
    d["T"] = Tok(rs(r, ALNUM, r.randrange(32, 48)) if r.random() < 0.6 else V.b64(V.rbytes(r, 30)))
    return d


custom("cli-token-flag", g_tokflag, A=[
    ("flag", "en", "terraform-provider-sync --org acme --token <<T>> --dry-run"),
    ("flag", "en", "kubectl --server=https://<<H>>:6443 --token=<<T>> get pods -A"),
    ("flag", "ko", "# 토큰은 아래 걸로 (만료 7일)\n./sync-tool --api-token <<T>> --project mobile"),
    ("flag", "en", "sonar-scanner -Dsonar.projectKey=web -Dsonar.host.url=https://sonar.example.com -Dsonar.token=<<T>>"),
], B=[
    ("flag", "en", "./deployctl push --env prod --auth-token=<<T>>"),
    ("flag", "en", "codecov upload-process -t <<T>> -f coverage.xml"),
    ("flag", "ko", "배포는 deployctl release --token <<T>> 로 하면 됩니다."),
    ("flag", "en", "  301  ./bin/agent register --url https://ci.example.com --token <<T>> --name runner-7"),
])


def g_url(r):
    d = base(r)
    pw = V.human_password(r, avoid="'\" ", need=r.choice("#?/@!%"))
    d["P"] = Tok(pw)
    d["W"] = r.choice(["ci-bot", "deploy", "admin", "svc_sync"])
    return d


custom("url-userinfo-special", g_url, A=[
    ("url", "en", "git clone https://<<W>>:<<P>>@git.example.com/platform/infra.git"),
    ("prose", "en", "Set the proxy to http://<<W>>:<<P>>@proxy.corp.example.net:3128 and retry the install."),
    ("url", "ko", "미러 주소는 https://<<W>>:<<P>>@mirror.example.kr/repo 입니다."),
    ("dotenv", "en", "HTTPS_PROXY=http://<<W>>:<<P>>@10.1.0.5:8080"),
], B=[
    ("yaml", "en", "spring:\n  rabbitmq:\n    addresses: amqp://<<W>>:<<P>>@<<H>>:5672"),
    ("log", "en", "ERROR fetch failed for https://<<W>>:<<P>>@nexus.example.org/repository/npm/ (ETIMEDOUT)"),
    ("chat", "ko", "연우: 사내 저장소 주소 알려주세요\n민호: https://<<W>>:<<P>>@git.example.co.kr/mobile/app.git"),
    ("code", "en", "conn = ftplib.FTP_TLS()  # legacy\nurl = \"ftp://<<W>>:<<P>>@files.example.com/incoming/\""),
])


# ---------------------------------------------------------------- framework / config files
def g_django(r):
    alphabet = LO + DIG + "!@#$%^&*(-_=+)"
    return dict(K=Tok(rs(r, alphabet, 50)))


custom("django-secret-key", g_django, A=[
    ("code", "en", "# settings/production.py\nDEBUG = False\nSECRET_KEY = '<<K>>'\nALLOWED_HOSTS = ['api.example.com']"),
    ("dotenv", "en", "DJANGO_SETTINGS_MODULE=config.settings.prod\nDJANGO_SECRET_KEY='<<K>>'"),
    ("prose", "ko", "장고 SECRET_KEY 가 레포에 올라가 있었어요: '<<K>>' 바로 교체하겠습니다."),
    ("yaml", "en", "env:\n  - name: DJANGO_SECRET_KEY\n    value: \"<<K>>\""),
], B=[
    ("code", "en", "SECRET_KEY = os.environ.get(\"DJANGO_SECRET_KEY\", '<<K>>')"),
    ("commit", "en", "Initial commit\n\n+ SECRET_KEY = \"<<K>>\""),
    ("chat", "ko", "서연: 로컬 세팅할 때 SECRET_KEY 뭐 넣어요?\n재민: 일단 '<<K>>' 쓰세요, 운영이랑 같은 거라 공유 금지"),
    ("ini", "en", "[django]\nsecret_key = <<K>>\ndebug = false"),
])


def g_npmrc(r):
    d = dict(T=Tok(V.checksummed62(r, "npm_") if r.random() < 0.5 else V.uuid4(r) if r.random() < 0.5 else V.b64(V.rbytes(r, 48))))
    return d


custom("npmrc-authtoken", g_npmrc, A=[
    ("npmrc", "en", "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=<<T>>"),
    ("npmrc", "en", "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=<<T>>\nalways-auth=true"),
    ("npmrc", "ko", "# 사내 레지스트리 (.npmrc)\n//nexus.example.kr/repository/npm-private/:_authToken=<<T>>"),
    ("shell", "en", "echo \"//registry.npmjs.org/:_authToken=<<T>>\" > ~/.npmrc && npm publish --access public"),
], B=[
    ("npmrc", "en", "; project .npmrc\n//artifactory.example.com/api/npm/npm-local/:_authToken=<<T>>\nstrict-ssl=true"),
    ("yaml", "en", "# .yarnrc.yml\nnpmScopes:\n  acme:\n    npmRegistryServer: \"https://npm.example.com\"\n    npmAuthToken: \"<<T>>\""),
    ("chat", "ko", "수아: 패키지 설치가 401 떠요\n동현: .npmrc 에 //npm.example.kr/:_authToken=<<T>> 한 줄 넣어보세요"),
    ("code", "en", "RUN echo '//registry.npmjs.org/:_authToken=<<T>>' > .npmrc && npm ci"),
])


def g_npmauth(r):
    u = r.choice(["deploy", "jenkins", "ci-publisher", "mkim"])
    pw = V.human_password(r, avoid="'\" ")
    return dict(A=Tok(V.b64(f"{u}:{pw}".encode())), U=u)


custom("npmrc-auth-basic", g_npmauth, A=[
    ("npmrc", "en", "registry=https://nexus.example.com/repository/npm-group/\n_auth=<<A>>\nemail=<<U>>@example.com\nalways-auth=true"),
    ("npmrc", "en", "//nexus.example.com/repository/npm-private/:_auth=<<A>>"),
    ("npmrc", "ko", "# 넥서스 인증 (base64로 인코딩된 id:pw)\n_auth = <<A>>"),
], B=[
    ("npmrc", "en", "; legacy basic auth\n_auth=\"<<A>>\"\nregistry=https://npm.corp.example.org/"),
    ("shell", "en", "npm config set _auth <<A>> --location=project"),
    ("chat", "ko", "현아: CI에서 npm 인증 어떻게 해요?\n진혁: _auth=<<A>> 를 .npmrc 에 넣었어요"),
])


def g_docker(r):
    u = r.choice(["acmebuild", "deploy", "robot$ci", "jlee"])
    pw = V.human_password(r, avoid="'\" ")
    return dict(A=Tok(V.b64(f"{u}:{pw}".encode())), U=u, R=r.choice(["https://index.docker.io/v1/", "ghcr.io", "registry.gitlab.com", "123456789012.dkr.ecr.ap-northeast-2.amazonaws.com", "harbor.example.kr"]))


custom("docker-config-auth", g_docker, A=[
    ("json", "en", "{\n  \"auths\": {\n    \"<<R>>\": {\n      \"auth\": \"<<A>>\"\n    }\n  }\n}"),
    ("json", "en", "cat ~/.docker/config.json\n{\"auths\":{\"<<R>>\":{\"auth\":\"<<A>>\",\"email\":\"ci@example.com\"}},\"credsStore\":\"\"}"),
    ("json", "ko", "// 도커 로그인 정보 (config.json 복사본)\n{\"auths\": {\"<<R>>\": {\"auth\": \"<<A>>\"}}}"),
], B=[
    ("yaml", "en", "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\nstringData:\n  .dockerconfigjson: '{\"auths\":{\"<<R>>\":{\"auth\":\"<<A>>\"}}}'"),
    ("json", "en", "{\n  \"auths\": {\n    \"<<R>>\": { \"username\": \"<<U>>\", \"auth\": \"<<A>>\" }\n  },\n  \"HttpHeaders\": { \"User-Agent\": \"Docker-Client/24.0.7 (linux)\" }\n}"),
    ("chat", "ko", "예린: 러너에서 pull 이 안 돼요\n상우: config.json 에 \"auth\": \"<<A>>\" 넣어두면 됩니다"),
])


def g_yamlpass(r):
    d = base(r)
    d["P"] = Tok(V.b64(V.rbytes(r, r.choice([12, 16, 18, 24]))) if r.random() < 0.5 else V.quote_safe_pw(r, "yaml"))
    return d


custom("yaml-pass", g_yamlpass, A=[
    ("yaml", "en", "smtp:\n  host: smtp.example.com\n  port: 587\n  user: <<U>>\n  pass: <<P>>"),
    ("yaml", "en", "database:\n  host: <<H>>\n  username: <<U>>\n  password: <<P>>\n  pool: 10"),
    ("yaml", "ko", "# 운영 설정 (커밋 금지)\ndb:\n  user: <<U>>\n  passwd: <<P>>"),
    ("yaml", "en", "ldap:\n  bind_dn: cn=<<U>>,dc=example,dc=com\n  bind_pw: <<P>>"),
], B=[
    ("yaml", "en", "mqtt:\n  broker: tcp://<<H>>:1883\n  client_id: sensor-gw\n  pass: \"<<P>>\""),
    ("yaml", "en", "redis:\n  addr: <<H>>:6379\n  password: '<<P>>'\n  db: 2"),
    ("yaml", "ko", "# 메일 발송 계정\nmail:\n  username: <<U>>@example.kr\n  password: <<P>>"),
    ("yaml", "en", "datasource:\n  url: jdbc:postgresql://<<H>>:5432/<<DB>>\n  username: <<U>>\n  pwd: <<P>>"),
])


def g_kube_key(r):
    l, b, e = V.rsa_pem(r) if r.random() < 0.5 else V.ec_pem(r)
    pemtxt = "\n".join(l + b + [e]) + "\n"
    data = V.b64(pemtxt.encode())
    cert = V.b64(("-----BEGIN CERTIFICATE-----\n" + "\n".join(V.wrap64(V.b64(V.rbytes(r, 700)))) + "\n-----END CERTIFICATE-----\n").encode())
    return dict(K=Tok(data), C=Pub(cert[:120]) if False else cert, S=r.choice(["https://10.0.0.1:6443", "https://k8s.example.net:6443", "https://api.prod.eks.example.com"]))


custom("kubeconfig-client-key-data", g_kube_key, A=[
    ("kubeconfig", "en", "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: <<S>>\n  name: prod\nusers:\n- name: admin\n  user:\n    client-certificate-data: <<C>>\n    client-key-data: <<K>>"),
    ("kubeconfig", "en", "users:\n- name: ci\n  user:\n    client-key-data: <<K>>"),
    ("kubeconfig", "ko", "# 클러스터 관리자 kubeconfig (유출 주의)\nusers:\n- name: kr-admin\n  user:\n    client-key-data: <<K>>"),
], B=[
    ("kubeconfig", "en", "- name: kind-dev\n  user:\n    client-certificate-data: <<C>>\n    client-key-data: <<K>>\ncurrent-context: kind-dev"),
    ("chat", "ko", "태윤: kubeconfig 좀 주세요\n보라: users 섹션만 드릴게요 → client-key-data: <<K>>"),
    ("yaml", "en", "# pasted from ~/.kube/config\nuser:\n  client-key-data: <<K>>"),
])


def g_kube_tok(r):
    t = V.jwt(r, claims={"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci",
                         "kubernetes.io/serviceaccount/service-account.name": "deployer", "sub": "system:serviceaccount:ci:deployer"}, alg="RS256")
    return dict(T=Tok(t), S=r.choice(["https://10.0.0.1:6443", "https://k8s.example.net:6443"]))


custom("kubeconfig-token", g_kube_tok, A=[
    ("kubeconfig", "en", "users:\n- name: deployer\n  user:\n    token: <<T>>\ncontexts:\n- context:\n    cluster: prod\n    user: deployer\n  name: prod"),
    ("shell", "en", "kubectl config set-credentials deployer --token=<<T>>"),
    ("kubeconfig", "ko", "# 배포용 서비스어카운트 토큰\nusers:\n- name: deployer\n  user:\n    token: <<T>>"),
], B=[
    ("kubeconfig", "en", "- name: sa-ci\n  user:\n    token: \"<<T>>\""),
    ("shell", "en", "curl -k -H \"Authorization: Bearer <<T>>\" <<S>>/api/v1/namespaces/ci/pods"),
    ("chat", "ko", "정훈: 대시보드 로그인 토큰 뭐예요?\n유나: <<T>>"),
])


def g_gcpsa(r):
    l, b, e = V.pkcs8_pem(r)
    body = "\\n".join(b)
    pk = "\\n".join(l) + "\\n" + body + "\\n" + e + "\\n"
    proj = r.choice(["acme-prod-341207", "data-pipeline-88", "kr-mobile-app"])
    return dict(PK=Tok(pk, secrets=[body]), PID=proj, KID=rs(r, HEX, 40), EM=f"deployer@{proj}.iam.gserviceaccount.com", CID=rs(r, DIG, 21))


custom("gcp-service-account-json", g_gcpsa, A=[
    ("json", "en", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"<<PID>>\",\n  \"private_key_id\": \"<<KID>>\",\n  \"private_key\": \"<<PK>>\",\n  \"client_email\": \"<<EM>>\",\n  \"client_id\": \"<<CID>>\",\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}"),
    ("dotenv", "en", "GOOGLE_CREDENTIALS_JSON={\"type\":\"service_account\",\"project_id\":\"<<PID>>\",\"private_key\":\"<<PK>>\",\"client_email\":\"<<EM>>\"}"),
    ("json", "ko", "// 서비스 계정 키 (절대 커밋 금지)\n{\"type\": \"service_account\", \"private_key\": \"<<PK>>\", \"client_email\": \"<<EM>>\"}"),
], B=[
    ("yaml", "en", "gcp:\n  credentials: '{\"type\":\"service_account\",\"project_id\":\"<<PID>>\",\"private_key_id\":\"<<KID>>\",\"private_key\":\"<<PK>>\",\"client_email\":\"<<EM>>\"}'"),
    ("code", "en", "creds = service_account.Credentials.from_service_account_info({\n    \"type\": \"service_account\",\n    \"private_key\": \"<<PK>>\",\n    \"client_email\": \"<<EM>>\",\n    \"token_uri\": \"https://oauth2.googleapis.com/token\",\n})"),
    ("chat", "ko", "경민: SA 키 파일 내용 붙여요\n{\"private_key\": \"<<PK>>\", \"client_email\": \"<<EM>>\"}"),
])


def g_netrc(r):
    d = base(r)
    d["P"] = Tok(V.human_password(r, avoid="'\" ") if r.random() < 0.6 else V.gh(r, "ghp"))
    d["M"] = r.choice(["github.com", "api.heroku.com", "git.example.com", "ftp.example.org", "nexus.example.kr"])
    return d


custom("netrc-password", g_netrc, A=[
    ("netrc", "en", "machine <<M>>\n  login <<U>>\n  password <<P>>"),
    ("netrc", "en", "machine <<M>> login <<U>> password <<P>>"),
    ("netrc", "ko", "# ~/.netrc (권한 600 확인)\nmachine <<M>>\nlogin <<U>>\npassword <<P>>"),
], B=[
    ("netrc", "en", "default login anonymous password guest@\nmachine <<M>> login <<U>> password <<P>> port 443"),
    ("shell", "en", "cat > ~/.netrc <<'EOF'\nmachine <<M>>\n  login <<U>>\n  password <<P>>\nEOF\nchmod 600 ~/.netrc"),
    ("chat", "ko", "하람: curl -n 이 안 먹어요\n기훈: ~/.netrc 에 machine <<M>> login <<U>> password <<P>> 있어요?"),
])


def g_ini(r):
    d = base(r)
    d["P"] = P(r, "ini")
    return d


custom("ini-password", g_ini, A=[
    ("ini", "en", "[client]\nuser = <<U>>\npassword = <<P>>\nhost = <<H>>"),
    ("ini", "en", "[database]\nengine = postgresql\nhost = <<H>>\nuser = <<U>>\npasswd = <<P>>"),
    ("ini", "ko", "; 배치 서버 설정\n[smtp]\nuser = <<U>>\npassword = <<P>>"),
    ("ini", "en", "[program:worker]\ncommand=/srv/app/worker\nenvironment=DB_PASSWORD=\"<<P>>\",QUEUE=\"high\""),
], B=[
    ("ini", "en", "[alembic]\nsqlalchemy.url = postgresql://<<U>>:<<P>>@<<H>>/<<DB>>"),
    ("ini", "en", "# php.ini excerpt\n[mail function]\nsmtp_user = <<U>>\nsmtp_pass = <<P>>"),
    ("ini", "ko", "# 접속 설정 파일 (.my.cnf)\n[mysql]\nuser=<<U>>\npassword=<<P>>"),
    ("ini", "en", "[remote \"backup\"]\nuser = <<U>>\npass = <<P>>\nurl = sftp://<<H>>/backups"),
])


def g_toml(r):
    d = base(r)
    d["P"] = P(r, "json")
    return d


custom("toml-password", g_toml, A=[
    ("toml", "en", "[database]\nhost = \"<<H>>\"\nuser = \"<<U>>\"\npassword = \"<<P>>\"\nmax_connections = 20"),
    ("toml", "en", "[registries.internal]\nindex = \"sparse+https://cargo.example.com/index/\"\ntoken = \"<<P>>\""),
    ("toml", "ko", "# 로컬 개발용 (공유 금지)\n[smtp]\nusername = \"<<U>>\"\npassword = \"<<P>>\""),
], B=[
    ("toml", "en", "[tool.poetry.http-basic.private]\nusername = \"<<U>>\"\npassword = \"<<P>>\""),
    ("toml", "en", "[[outputs.influxdb]]\n  urls = [\"http://<<H>>:8086\"]\n  username = \"<<U>>\"\n  password = \"<<P>>\""),
    ("toml", "ko", "# 스테이징 DB\n[db]\nuser = \"<<U>>\"\npass = \"<<P>>\""),
])


def g_hcl(r):
    d = base(r)
    d["P"] = P(r, "json")
    return d


custom("hcl-password", g_hcl, A=[
    ("hcl", "en", "resource \"aws_db_instance\" \"main\" {\n  engine            = \"postgres\"\n  instance_class    = \"db.t3.medium\"\n  username          = \"<<U>>\"\n  password          = \"<<P>>\"\n  allocated_storage = 50\n}"),
    ("hcl", "en", "provider \"grafana\" {\n  url  = \"https://grafana.example.net\"\n  auth = \"<<U>>:<<P>>\"\n}"),
    ("hcl", "ko", "# 임시로 하드코딩 (tfvars로 옮길 것)\nmaster_password = \"<<P>>\""),
], B=[
    ("hcl", "en", "module \"rds\" {\n  source          = \"./modules/rds\"\n  master_username = \"<<U>>\"\n  master_password = \"<<P>>\"\n}"),
    ("hcl", "en", "# terraform.tfvars\nregion      = \"ap-northeast-2\"\ndb_password = \"<<P>>\""),
    ("hcl", "ko", "# 볼트 부트스트랩용\nresource \"vault_generic_secret\" \"db\" {\n  path      = \"secret/db\"\n  data_json = jsonencode({ password = \"<<P>>\" })\n}"),
])


def g_systemd(r):
    d = base(r)
    d["P"] = P(r, "dq")
    return d


custom("systemd-environment-password", g_systemd, A=[
    ("systemd", "en", "[Service]\nType=simple\nUser=app\nEnvironment=\"DB_PASSWORD=<<P>>\"\nExecStart=/opt/app/bin/server"),
    ("systemd", "en", "[Service]\nEnvironment=SMTP_USER=<<U>> \"SMTP_PASSWORD=<<P>>\"\nExecStart=/usr/bin/mailer"),
    ("systemd", "ko", "# /etc/systemd/system/batch.service (임시 설정)\n[Service]\nEnvironment=\"REDIS_PASSWORD=<<P>>\""),
], B=[
    ("systemd", "en", "# override.conf\n[Service]\nEnvironment=\"ADMIN_PASSWORD=<<P>>\"\nRestart=always"),
    ("systemd", "en", "[Unit]\nDescription=Metrics exporter\n[Service]\nEnvironment=\"EXPORTER_PASS=<<P>>\" \"EXPORTER_USER=<<U>>\"\nExecStart=/usr/local/bin/exporter"),
    ("systemd", "ko", "systemctl edit api 로 아래 추가했어요\n[Service]\nEnvironment=\"API_DB_PASSWORD=<<P>>\""),
])


def g_make(r):
    d = base(r)
    d["P"] = P(r, "make")
    return d


custom("makefile-password", g_make, A=[
    ("makefile", "en", "DB_USER ?= <<U>>\nDB_PASSWORD ?= <<P>>\n\nmigrate:\n\tDATABASE_URL=postgres://$(DB_USER):$(DB_PASSWORD)@localhost/app ./bin/migrate up"),
    ("makefile", "en", "REGISTRY_PASS := <<P>>\n\nlogin:\n\t@echo $(REGISTRY_PASS) | docker login -u ci --password-stdin registry.example.com"),
    ("makefile", "ko", "# 로컬 전용 값\nADMIN_PASSWORD = <<P>>"),
], B=[
    ("makefile", "en", "export MYSQL_PWD = <<P>>\n\nseed:\n\tmysql -u <<U>> <<DB>> < seed.sql"),
    ("makefile", "en", "KEYSTORE_PASSWORD=<<P>>\nsign:\n\tjarsigner -storepass $(KEYSTORE_PASSWORD) app.apk release"),
    ("makefile", "ko", "# 배포 타겟 (비번은 나중에 env로)\nDEPLOY_PASS ?= <<P>>"),
])


def g_sts(r):
    return dict(ID=Tok(V.aws_key_id(r, "ASIA")), S=Tok(V.aws_secret(r)), T=Tok(V.aws_session_token(r)))


custom("aws-session-token", g_sts, A=[
    ("shell", "en", "export AWS_ACCESS_KEY_ID=<<ID>>\nexport AWS_SECRET_ACCESS_KEY=<<S>>\nexport AWS_SESSION_TOKEN=<<T>>"),
    ("ini", "en", "[temp-admin]\naws_access_key_id = <<ID>>\naws_secret_access_key = <<S>>\naws_session_token = <<T>>"),
    ("json", "en", "{\n  \"Credentials\": {\n    \"AccessKeyId\": \"<<ID>>\",\n    \"SecretAccessKey\": \"<<S>>\",\n    \"SessionToken\": \"<<T>>\",\n    \"Expiration\": \"2026-12-01T23:10:00Z\"\n  }\n}"),
    ("prose", "ko", "임시 자격증명 공유: 키 <<ID>> / 시크릿 <<S>> / 세션 토큰 <<T>> (1시간 유효)"),
], B=[
    ("dotenv", "en", "AWS_ACCESS_KEY_ID=<<ID>>\nAWS_SECRET_ACCESS_KEY=<<S>>\nAWS_SESSION_TOKEN=<<T>>\nAWS_REGION=ap-northeast-2"),
    ("log", "en", "DEBUG botocore.credentials: Found credentials in environment: key=<<ID>> secret=<<S>> token=<<T>>"),
    ("code", "en", "session = boto3.Session(\n    aws_access_key_id=\"<<ID>>\",\n    aws_secret_access_key=\"<<S>>\",\n    aws_session_token=\"<<T>>\",\n)"),
    ("chat", "ko", "도윤: STS 토큰 받았어요\nAWS_ACCESS_KEY_ID=<<ID>>\nAWS_SECRET_ACCESS_KEY=<<S>>\nAWS_SESSION_TOKEN=<<T>>"),
])


# ---------------------------------------------------------------- private keys
def pemtok(lines, body, end, indent="", sep="\n"):
    b = (sep + indent).join(body)
    head = (sep + indent).join(lines)
    block = indent + head + sep + indent + b + sep + indent + end
    return Tok(block, secrets=[b])


def g_pem(fn):
    def g(r):
        l, b, e = fn(r)
        return dict(K=pemtok(l, b, e), KI=pemtok(l, b, e, indent="    "), KJ=pemtok(l, b, e, sep="\\n"), H=r.choice(HOSTS))
    return g


PEM_A = [
    ("pem", "en", "<<K>>"),
    ("prose", "en", "Here's the deploy key for <<H>>, paste it into the runner settings:\n\n<<K>>"),
    ("yaml", "en", "tls:\n  key: |\n<<KI>>"),
    ("pem", "ko", "서버 개인키 첨부합니다 (외부 공유 금지)\n<<K>>"),
]
PEM_B = [
    ("shell", "en", "cat > /etc/ssl/private/app.key <<'EOF'\n<<K>>\nEOF"),
    ("json", "en", "{\"name\": \"signing\", \"key\": \"<<KJ>>\"}"),
    ("chat", "en", "[16:20] ana: is this the right key?\n<<K>>\n[16:21] bo: yes but delete this message"),
    ("pem", "ko", "인증서 갱신하면서 생성한 키입니다.\n<<K>>"),
]
custom("pem-rsa-private-key", g_pem(V.rsa_pem), A=PEM_A, B=PEM_B)
custom("pem-ec-private-key", g_pem(V.ec_pem), A=PEM_A, B=PEM_B)
custom("pkcs8-private-key", g_pem(V.pkcs8_pem), A=PEM_A, B=PEM_B)
custom("openssh-private-key", g_pem(V.openssh_pem), A=[
    ("pem", "en", "$ cat ~/.ssh/id_ed25519\n<<K>>"),
    ("prose", "en", "New CI deploy key (ed25519), the public half is already on <<H>>:\n<<K>>"),
    ("yaml", "en", "- name: Add SSH key\n  run: |\n    mkdir -p ~/.ssh\n    cat > ~/.ssh/id_ed25519 <<'EOF'\n<<KI>>\n    EOF"),
    ("pem", "ko", "배포 서버 접속용 키예요. 받으시면 바로 삭제해주세요.\n<<K>>"),
], B=PEM_B)


def g_enc(r):
    l, b, e = V.encrypted_pem(r)
    d = dict(K=pemtok(l, b, e), KI=pemtok(l, b, e, indent="    "), KJ=pemtok(l, b, e, sep="\\n"), H=r.choice(HOSTS))
    d["PP"] = Tok(V.quote_safe_pw(r, "prose"))
    return d


custom("encrypted-private-key", g_enc, A=[
    ("pem", "en", "<<K>>\n\npassphrase: <<PP>>"),
    ("prose", "en", "The signing key is below; its passphrase is <<PP>> .\n<<K>>"),
    ("pem", "ko", "암호화된 키 파일입니다. 암호는 <<PP>> 입니다.\n<<K>>"),
], B=[
    ("shell", "en", "openssl rsa -in enc.key -out plain.key -passin pass:<<PP>>\n$ cat enc.key\n<<K>>"),
    ("json", "en", "{\"key\": \"<<KJ>>\", \"passphrase\": \"<<PP>>\"}"),
    ("chat", "ko", "소윤: 키 암호 뭐예요?\n재원: <<PP>> 이고 키는 아래요\n<<K>>"),
])


def g_age(r):
    k = V.age_key(r)
    pub = "age1" + "".join(r.choice(V.BECH32) for _ in range(58))
    return dict(K=Tok(k), PUB=Pub(pub))


custom("age-secret-key", g_age, A=[
    ("pem", "en", "# created: 2026-11-20T10:02:11+09:00\n# public key: <<PUB>>\n<<K>>"),
    ("dotenv", "en", "SOPS_AGE_KEY=<<K>>"),
    ("prose", "ko", "sops 복호화 키는 <<K>> 입니다. 공개키는 <<PUB>>."),
], B=[
    ("yaml", "en", "- name: Decrypt secrets\n  env:\n    SOPS_AGE_KEY: <<K>>\n  run: sops -d secrets.enc.yaml > secrets.yaml"),
    ("shell", "en", "echo '<<K>>' > ~/.config/sops/age/keys.txt"),
    ("chat", "ko", "나연: age 키 어디 있어요?\n태민: <<K>> (recipient는 <<PUB>>)"),
])


def g_pgp(r):
    l, b, e = V.pgp_private(r)
    return dict(K=pemtok(l, b, e))


custom("pgp-private-key", g_pgp, A=[
    ("pem", "en", "<<K>>"),
    ("prose", "en", "Release signing key export (gpg --export-secret-keys --armor):\n<<K>>"),
    ("pem", "ko", "패키지 서명용 GPG 비밀키입니다.\n<<K>>"),
], B=[
    ("shell", "en", "gpg --batch --import <<'EOF'\n<<K>>\nEOF"),
    ("yaml", "en", "# paste into GPG_PRIVATE_KEY secret\n# ---\n<<K>>"),
    ("chat", "ko", "수현: 서명 키 백업본이에요\n<<K>>"),
])


def g_sshyaml(r):
    l, b, e = V.openssh_pem(r) if r.random() < 0.5 else V.rsa_pem(r)
    return dict(K2=pemtok(l, b, e, indent="  "), K4=pemtok(l, b, e, indent="    "), K6=pemtok(l, b, e, indent="      "), H=r.choice(HOSTS), U=r.choice(USERS))


custom("ssh-key-in-yaml", g_sshyaml, A=[
    ("yaml", "en", "deploy:\n  host: <<H>>\n  user: <<U>>\n  ssh_private_key: |\n<<K4>>"),
    ("yaml", "en", "all:\n  vars:\n    ansible_user: <<U>>\n    ansible_ssh_private_key: |\n<<K6>>"),
    ("yaml", "ko", "# 배포 설정 (키 포함, 커밋 주의)\nprivate_key: |\n<<K2>>"),
], B=[
    ("yaml", "en", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: git-ssh\nstringData:\n  id_rsa: |\n<<K4>>"),
    ("yaml", "en", "sftp:\n  host: <<H>>\n  key: |\n<<K4>>"),
    ("yaml", "ko", "# 젠킨스 자격증명 백업\ncredentials:\n  sshKey: |\n<<K4>>"),
])


def g_wg(r):
    return dict(K=Tok(V.wireguard_key(r)), PUB=Pub(V.wireguard_key(r)), IP=f"10.8.0.{r.randrange(2, 250)}")


custom("wireguard-private-key", g_wg, issue=False, A=[
    ("ini", "en", "[Interface]\nAddress = <<IP>>/24\nPrivateKey = <<K>>\nListenPort = 51820\n\n[Peer]\nPublicKey = <<PUB>>\nAllowedIPs = 0.0.0.0/0"),
    ("prose", "en", "wg0 on the new gateway uses private key <<K>>; peer pubkey is <<PUB>>."),
    ("ini", "ko", "# 재택 VPN 설정 (개인키 포함)\n[Interface]\nPrivateKey = <<K>>\nAddress = <<IP>>/32"),
], B=[
    ("shell", "en", "echo '<<K>>' | sudo tee /etc/wireguard/private.key\nwg set wg0 private-key /etc/wireguard/private.key"),
    ("yaml", "en", "wireguard:\n  interface:\n    private_key: <<K>>\n    address: <<IP>>/24\n  peers:\n    - public_key: <<PUB>>"),
    ("chat", "ko", "한결: wg 설정 파일 보내드려요\nPrivateKey = <<K>>\nPublicKey(서버) = <<PUB>>"),
])


def g_k8sdata(r):
    pw = V.human_password(r, avoid="")
    return dict(D=Tok(V.b64(pw.encode())), U=V.b64(r.choice(USERS).encode()))


custom("k8s-secret-data-base64", g_k8sdata, issue=False, A=[
    ("yaml", "en", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\ndata:\n  username: <<U>>\n  password: <<D>>"),
    ("yaml", "en", "data:\n  POSTGRES_PASSWORD: <<D>>"),
    ("yaml", "ko", "# 운영 시크릿 매니페스트 (base64 인코딩)\ndata:\n  admin-password: <<D>>"),
], B=[
    ("shell", "en", "$ kubectl get secret db-credentials -o jsonpath='{.data.password}'\n<<D>>"),
    ("json", "en", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"redis-auth\"},\"data\":{\"redis-password\":\"<<D>>\"}}"),
    ("chat", "ko", "건우: 시크릿 값 확인 좀\n지안: data.password 가 <<D>> 로 들어가 있어요"),
])


def g_ldap(r):
    d = base(r)
    d["P"] = P(r, "sq")
    return d


custom("ldap-bind-password", g_ldap, issue=False, A=[
    ("shell", "en", "ldapsearch -x -H ldaps://ldap.example.com -D 'cn=<<U>>,ou=svc,dc=example,dc=com' -w '<<P>>' -b 'dc=example,dc=com' '(uid=jdoe)'"),
    ("ini", "en", "[ldap]\nuri = ldaps://ldap.example.com\nbinddn = cn=<<U>>,dc=example,dc=com\nbindpw = <<P>>"),
    ("prose", "ko", "LDAP 바인드 계정은 cn=<<U>> 이고 비밀번호는 <<P>> 입니다."),
], B=[
    ("ini", "en", "# /etc/sssd/sssd.conf\n[domain/example.com]\nldap_default_bind_dn = cn=<<U>>,dc=example,dc=com\nldap_default_authtok = <<P>>"),
    ("shell", "en", "ldapmodify -H ldap://<<H>> -D cn=admin,dc=corp -w '<<P>>' -f add-user.ldif"),
    ("chat", "ko", "수민: 바인드 비번 만료됐나봐요\n영호: 새 비번 <<P>> 로 바꿨어요"),
])


def g_basic(r):
    u = r.choice(USERS)
    pw = V.human_password(r, avoid="")
    return dict(B=Tok(V.b64(f"{u}:{pw}".encode())), H=r.choice(["api.example.com", "jenkins.example.net", "registry.example.kr"]))


custom("basic-auth-header", g_basic, A=[
    ("shell", "en", "curl -H \"Authorization: Basic <<B>>\" https://<<H>>/api/v1/status"),
    ("log", "en", "GET /metrics HTTP/1.1\nHost: <<H>>\nAuthorization: Basic <<B>>\nUser-Agent: prometheus/2.51"),
    ("prose", "ko", "헤더에 Authorization: Basic <<B>> 넣으면 통과합니다."),
], B=[
    ("code", "en", "req.Header.Set(\"Authorization\", \"Basic <<B>>\")"),
    ("yaml", "en", "http:\n  headers:\n    Authorization: \"Basic <<B>>\"\n  url: https://<<H>>/ingest"),
    ("chat", "ko", "재희: 웹훅 인증 어떻게 했어요?\n민재: Basic <<B>> 고정 헤더요"),
])


def g_mvn(r):
    d = base(r)
    d["P"] = P(r, "xml")
    return d


custom("maven-settings-password", g_mvn, issue=False, A=[
    ("xml", "en", "<settings>\n  <servers>\n    <server>\n      <id>internal-releases</id>\n      <username><<U>></username>\n      <password><<P>></password>\n    </server>\n  </servers>\n</settings>"),
    ("xml", "en", "<connectionStrings>\n  <add name=\"Main\" connectionString=\"Data Source=<<H>>;User Id=<<U>>;Password=<<P>>;\" />\n</connectionStrings>"),
    ("xml", "ko", "<!-- 사내 넥서스 계정 (임시) -->\n<server><id>nexus</id><username><<U>></username><password><<P>></password></server>"),
], B=[
    ("xml", "en", "<Resource name=\"jdbc/app\" auth=\"Container\" type=\"javax.sql.DataSource\"\n  username=\"<<U>>\" password=\"<<P>>\"\n  url=\"jdbc:mysql://<<H>>:3306/<<DB>>\"/>"),
    ("xml", "en", "<appSettings>\n  <add key=\"SmtpUser\" value=\"<<U>>\" />\n  <add key=\"SmtpPassword\" value=\"<<P>>\" />\n</appSettings>"),
    ("xml", "ko", "<!-- 개발 서버 데이터소스 -->\n<property name=\"password\" value=\"<<P>>\"/>"),
])
