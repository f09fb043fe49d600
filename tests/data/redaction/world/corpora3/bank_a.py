"""Template bank A -> used ONLY for world-d (tuning set)."""

# ---- vendor tokens: generic contexts.  «V» is the token as displayed.
VENDOR_T = [
    ("dotenv", "en", "# .env.production\n«env»=«V»\nLOG_LEVEL=info"),
    ("shell", "en", "$ export «env»=\"«V»\"\n$ ./scripts/release.sh --dry-run"),
    ("yaml", "en", "services:\n  «app»:\n    environment:\n      «env»: «V»\n      TZ: Asia/Seoul"),
    ("json", "en", "{\n  \"service\": \"«app»\",\n  \"«envl»\": \"«V»\",\n  \"retries\": 3\n}"),
    ("prose", "en", "Rotated the «label» this morning; the new value is «V» and the old one is revoked."),
    ("chat", "en", "[«hh»] «nick»: can you retry with «V»?\n[«hh»] «nick2»: yep that one works"),
    ("commit", "en", "chore(ci): hardcode «label» until the secrets store is back\n\n«env»=«V» is temporary, revert before release"),
    ("log", "en", "«date»T«hh»:11Z DEBUG boot: loaded config «envl»=«V» region=ap-northeast-2"),
    ("http", "en", "GET /v2/projects HTTP/1.1\nHost: api.«dom»\nAuthorization: Bearer «V»\nAccept: application/json"),
    ("code", "en", "client = ApiClient(\n    api_key=\"«V»\",\n    timeout=30,\n)"),
    ("code", "en", "const «camel» = '«V»';\nexport default { «camel» };"),
    ("toml", "en", "[«app»]\nendpoint = \"https://api.«dom»\"\ntoken = \"«V»\""),
    ("markdown", "en", "| variable | value |\n|---|---|\n| `«env»` | `«V»` |\n| `REGION` | `ap-northeast-2` |"),
    ("prose", "ko", "«label_ko» 새로 발급받았습니다: «V»"),
    ("chat", "ko", "«nick»: 혹시 «env» 필요하시면 이거 쓰세요 «V»\n«nick2»: 감사합니다!"),
    ("prose", "ko", "결정 사항: 스테이징은 당분간 «env»=«V» 로 유지하고 다음 주에 교체."),
    ("flag", "en", "«app»-cli login --token «V» --profile prod"),
    ("ini", "en", "[default]\nregion = ap-northeast-2\n«envl» = «V»"),
    ("shell", "en", "docker run --rm -e «env»=«V» ghcr.io/acme/«app»:latest"),
    ("prose", "en", "Decision: keep using «V» for the «label» in staging until the vault migration lands."),
    ("log", "en", "Traceback (most recent call last):\n  File \"/srv/«app»/main.py\", line 42, in <module>\n    connect()\nAuthError: credential rejected: '«V»'"),
    ("xml", "en", "<appSettings>\n  <add key=\"«env»\" value=\"«V»\" />\n</appSettings>"),
    ("prose", "ko", "«app» 배포할 때 «label_ko_eun» «V» 사용하면 됩니다"),
    ("yaml", "en", "# ci secrets (do not commit!)\n«envl»: \"«V»\""),
]

# ---- pairs: slots S_* secret, P_* public id
PAIR_T = {
    "aws-keypair": [
        ("ini", "en", "[default]\naws_access_key_id = «S_id»\naws_secret_access_key = «S_sec»\nregion = ap-northeast-2"),
        ("shell", "en", "export AWS_ACCESS_KEY_ID=«S_id»\nexport AWS_SECRET_ACCESS_KEY=«S_sec»"),
        ("prose", "ko", "AWS 키 공유드립니다. 액세스 키 «S_id» / 시크릿 «S_sec»"),
    ],
    "aws-sts-credentials": [
        ("json", "en", "{\n  \"Credentials\": {\n    \"AccessKeyId\": \"«S_id»\",\n    \"SecretAccessKey\": \"«S_sec»\",\n    \"SessionToken\": \"«S_tok»\",\n    \"Expiration\": \"«date»T12:00:00Z\"\n  }\n}"),
        ("dotenv", "en", "AWS_ACCESS_KEY_ID=«S_id»\nAWS_SECRET_ACCESS_KEY=«S_sec»\nAWS_SESSION_TOKEN=«S_tok»"),
    ],
    "twilio-sid-token": [
        ("dotenv", "en", "TWILIO_ACCOUNT_SID=«P_id»\nTWILIO_AUTH_TOKEN=«S_sec»"),
        ("code", "en", "client = Client(\"«P_id»\", \"«S_sec»\")\nclient.messages.create(to=to, from_=sender, body=msg)"),
        ("prose", "en", "Twilio creds for the OTP service: account «P_id», auth token «S_sec»."),
    ],
    "google-oauth-client": [
        ("json", "en", "{\"web\":{\"client_id\":\"«P_id»\",\"client_secret\":\"«S_sec»\",\"redirect_uris\":[\"https://«dom»/oauth2/callback\"]}}"),
        ("dotenv", "en", "GOOGLE_CLIENT_ID=«P_id»\nGOOGLE_CLIENT_SECRET=«S_sec»"),
    ],
    "azure-service-principal": [
        ("json", "en", "{\n  \"appId\": \"«P_id»\",\n  \"displayName\": \"«app»-sp\",\n  \"password\": \"«S_sec»\",\n  \"tenant\": \"«P_ten»\"\n}"),
        ("shell", "en", "az login --service-principal -u «P_id» -p '«S_sec»' --tenant «P_ten»"),
    ],
    "algolia-admin": [
        ("dotenv", "en", "ALGOLIA_APP_ID=«P_id»\nALGOLIA_ADMIN_KEY=«S_sec»"),
        ("code", "en", "const client = algoliasearch('«P_id»', '«S_sec»'); // admin key, server only"),
    ],
    "alibaba-keypair": [
        ("ini", "en", "[default]\naccess_key_id = «S_id»\naccess_key_secret = «S_sec»\nregion_id = cn-hangzhou"),
        ("shell", "en", "aliyun configure set --access-key-id «S_id» --access-key-secret «S_sec» --region cn-shanghai"),
    ],
    "tencent-keypair": [
        ("dotenv", "en", "TENCENTCLOUD_SECRET_ID=«S_id»\nTENCENTCLOUD_SECRET_KEY=«S_sec»"),
        ("prose", "ko", "텐센트 클라우드 SecretId «S_id», SecretKey «S_sec» 입니다."),
    ],
    "razorpay-keypair": [
        ("dotenv", "en", "RAZORPAY_KEY_ID=«P_id»\nRAZORPAY_KEY_SECRET=«S_sec»"),
        ("code", "en", "razorpay.Client(auth=(\"«P_id»\", \"«S_sec»\"))"),
    ],
    "pusher-app": [
        ("dotenv", "en", "PUSHER_APP_ID=«P_id»\nPUSHER_KEY=«P_key»\nPUSHER_SECRET=«S_sec»\nPUSHER_CLUSTER=ap3"),
        ("code", "en", "pusher = Pusher(app_id='«P_id»', key='«P_key»', secret='«S_sec»', cluster='ap3')"),
    ],
    "cloudinary-url": [
        ("dotenv", "en", "CLOUDINARY_URL=cloudinary://«P_id»:«S_sec»@«cloud»"),
        ("code", "en", "cloudinary.config(cloud_name=\"«cloud»\", api_key=\"«P_id»\", api_secret=\"«S_sec»\")"),
    ],
    "mongodb-atlas-apikey": [
        ("shell", "en", "atlas config set public_api_key «P_id»\natlas config set private_api_key «S_sec»"),
        ("prose", "en", "Atlas programmatic key: public «P_id», private «S_sec» (org owner scope)."),
    ],
}

# ---- private key containers: «BLOCK» replaced by the transformed block, secret = transformed body
KEY_T = [
    ("pem", "en", "raw", "$ cat ~/.ssh/deploy_key\n«BLOCK»"),
    ("json", "en", "json", "{\"type\": \"tls\", \"name\": \"«app»\", \"key\": \"«BLOCK»\\n\"}"),
    ("yaml", "en", "indent4", "tls:\n  key: |\n    «BLOCK»"),
    ("dotenv", "en", "json", "PRIVATE_KEY=\"«BLOCK»\""),
    ("chat", "ko", "raw", "«nick»: 서버 접속용 키 여기 붙여요\n«BLOCK»\n«nick2»: 받았어요"),
    ("pem", "en", "raw", "# written by provision.sh on «date»\n«BLOCK»\n"),
]

# ---- structural credentials
STRUCT_T = {
    "sh-export-password": [
        ("shell", "en", "export DB_USER=«user»\nexport DB_PASSWORD='«pw»'\npython manage.py migrate"),
        ("shell", "en", "export ADMIN_PASS=«pws»"),
        ("shell", "ko", "# 임시로 넣어둠\nexport SMTP_PASSWORD=\"«pws»\""),
    ],
    "dotenv-password": [
        ("dotenv", "en", "DATABASE_HOST=«host»\nDATABASE_USER=«user»\nDATABASE_PASSWORD=«pws»\nDATABASE_NAME=«db»"),
        ("dotenv", "en", "MAIL_PASSWORD='«pw»'\nMAIL_FROM=noreply@example.com"),
        ("dotenv", "en", "SECRET_KEY=\"«tok»\"\nDEBUG=false"),
    ],
    "ini-password": [
        ("ini", "en", "[database]\nhost = «host»\nuser = «user»\npassword = «pw»"),
        ("ini", "en", "[client]\nuser=«user»\npassword=\"«pw»\"\nhost=«host»"),
        ("ini", "en", "[smtp]\nserver = smtp.«dom»\nlogin = «user»\npasswd = «pw»"),
    ],
    "yaml-password": [
        ("yaml", "en", "database:\n  host: «host»\n  username: «user»\n  password: \"«pw»\""),
        ("yaml", "en", "smtp:\n  user: «user»\n  pass: '«pw»'"),
        ("yaml", "en", "redis:\n  url: redis://«host»:6379/0\n  password: «pws»"),
    ],
    "json-password": [
        ("json", "en", "{\"db\": {\"host\": \"«host»\", \"user\": \"«user»\", \"password\": \"«pw»\"}}"),
        ("json", "en", "{\n  \"username\": \"«user»\",\n  \"passwd\": \"«pw»\",\n  \"remember\": true\n}"),
        ("json", "en", "{\"name\": \"«app»\", \"apiSecret\": \"«tok»\"}"),
    ],
    "toml-password": [
        ("toml", "en", "[database]\nurl = \"«host»\"\nuser = \"«user»\"\npassword = \"«pw»\""),
        ("toml", "en", "[auth]\nsecret_key = '«tok»'"),
    ],
    "netrc": [
        ("netrc", "en", "machine «host»\n  login «user»\n  password «pw»"),
        ("netrc", "en", "machine api.heroku.com login «user»@example.com password «tok»"),
        ("netrc", "en", "$ cat ~/.netrc\nmachine git.example.org login «user» password «pw»\ndefault login anonymous password guest"),
    ],
    "npmrc-token": [
        ("npmrc", "en", "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=«tok»"),
        ("npmrc", "en", "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=«tok»\nalways-auth=true"),
        ("npmrc", "en", "//nexus.«dom»/repository/npm/:_auth=«b64up»\nemail=«user»@example.com"),
    ],
    "pypirc": [
        ("ini", "en", "[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://«dom»/pypi/\nusername = «user»\npassword = «pw»"),
        ("ini", "en", "[pypi]\nusername = __token__\npassword = «tok»"),
    ],
    "pip-conf-index": [
        ("ini", "en", "[global]\nindex-url = https://«user»:«pwu»@nexus.«dom»/repository/pypi/simple\ntimeout = 60"),
        ("shell", "en", "pip install -r requirements.txt --extra-index-url https://«user»:«pws»@pypi.«dom»/simple"),
    ],
    "docker-config-auth": [
        ("json", "en", "{\n  \"auths\": {\n    \"registry.«dom»\": {\n      \"auth\": \"«b64up»\"\n    }\n  }\n}"),
        ("shell", "en", "echo '«pw»' | docker login registry.«dom» -u «user» --password-stdin"),
        ("shell", "en", "docker login -u «user» -p «pws» registry.«dom»"),
    ],
    "kubeconfig-token": [
        ("kubeconfig", "en", "users:\n- name: «user»\n  user:\n    token: «jwt»"),
        ("kubeconfig", "en", "users:\n- name: ci\n  user:\n    username: «user»\n    password: «pws»"),
    ],
    "hcl-password": [
        ("hcl", "en", "resource \"aws_db_instance\" \"main\" {\n  engine   = \"postgres\"\n  username = \"«user»\"\n  password = \"«pw»\"\n}"),
        ("hcl", "en", "provider \"grafana\" {\n  url  = \"https://grafana.«dom»\"\n  auth = \"«tok»\"\n}"),
        ("hcl", "en", "variable \"db_password\" {\n  type    = string\n  default = \"«pw»\"\n}"),
    ],
    "java-properties": [
        ("ini", "en", "spring.datasource.url=jdbc:postgresql://«host»:5432/«db»\nspring.datasource.username=«user»\nspring.datasource.password=«pw»"),
        ("ini", "en", "mail.smtp.user=«user»\nmail.smtp.password=«pw»"),
    ],
    "spring-yaml": [
        ("yaml", "en", "spring:\n  datasource:\n    url: jdbc:mysql://«host»:3306/«db»\n    username: «user»\n    password: '«pw»'"),
        ("yaml", "en", "spring:\n  rabbitmq:\n    host: «host»\n    username: «user»\n    password: «pws»"),
    ],
    "helm-values": [
        ("yaml", "en", "# values-prod.yaml\npostgresql:\n  auth:\n    username: «user»\n    password: \"«pw»\"\n    database: «db»"),
        ("yaml", "en", "redis:\n  auth:\n    enabled: true\n    password: «pws»"),
    ],
    "gha-workflow": [
        ("yaml", "en", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DEPLOY_TOKEN: «tok»\n    steps:\n      - run: ./deploy.sh"),
        ("yaml", "en", "- uses: docker/login-action@v3\n  with:\n    registry: ghcr.io\n    username: «user»\n    password: «pws»"),
    ],
    "compose-env": [
        ("yaml", "en", "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: «user»\n      POSTGRES_PASSWORD: «pws»"),
        ("yaml", "en", "services:\n  mysql:\n    image: mysql:8\n    environment:\n      - MYSQL_ROOT_PASSWORD=«pws»"),
    ],
    "systemd-env": [
        ("systemd", "en", "[Service]\nUser=«user»\nEnvironment=\"DB_PASSWORD=«pws»\"\nExecStart=/opt/«app»/bin/server"),
        ("systemd", "en", "[Service]\nEnvironment=API_TOKEN=«tok»\nRestart=always"),
    ],
    "crontab-cred": [
        ("shell", "en", "0 3 * * * PGPASSWORD=«pws» pg_dump -h «host» -U «user» «db» > /backup/«db».sql"),
        ("shell", "en", "*/15 * * * * curl -s -u «user»:«pws» https://«dom»/health >/dev/null"),
    ],
    "makefile-cred": [
        ("makefile", "en", "REGISTRY_PASSWORD := «pws»\n\npush:\n\tdocker login -u ci -p $(REGISTRY_PASSWORD) registry.local"),
        ("makefile", "en", "deploy:\n\tcurl -H 'X-Api-Key: «tok»' https://«dom»/deploy"),
    ],
    "xml-password": [
        ("xml", "en", "<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n      <username>«user»</username>\n      <password>«pwx»</password>\n    </server>\n  </servers>\n</settings>"),
        ("xml", "en", "<connectionStrings>\n  <add name=\"Main\" connectionString=\"Server=«host»;User Id=«user»;Password=«pwx»;\" />\n</connectionStrings>"),
    ],
    "flag-mysql": [
        ("flag", "en", "mysql -h «host» -u «user» -p«pws» «db»"),
        ("flag", "en", "mysqldump --user=«user» --password='«pw»' «db» > dump.sql"),
    ],
    "flag-pgpassword": [
        ("flag", "en", "PGPASSWORD='«pw»' psql -h «host» -U «user» -d «db» -c 'select 1'"),
        ("flag", "en", "$ PGPASSWORD=«pws» pg_restore -h «host» -U «user» -d «db» latest.dump"),
    ],
    "flag-sshpass": [
        ("flag", "en", "sshpass -p '«pw»' ssh -o StrictHostKeyChecking=no «user»@«host»"),
        ("flag", "en", "sshpass -p «pws» scp build.tar.gz «user»@«host»:/tmp/"),
    ],
    "flag-redis-cli": [
        ("flag", "en", "redis-cli -h «host» -p 6379 -a '«pw»' INFO replication"),
        ("flag", "en", "redis-cli -a «pws» --no-auth-warning FLUSHALL"),
    ],
    "redis-requirepass": [
        ("ini", "en", "# redis.conf\nbind 0.0.0.0\nrequirepass «pws»\nmaxmemory 2gb"),
        ("ini", "en", "masterauth «pws»\nrequirepass «pws»"),
    ],
    "flag-curl-user": [
        ("flag", "en", "curl -u «user»:«pws» https://«dom»/api/v1/status"),
        ("flag", "en", "curl --user '«user»:«pw»' -X POST https://jenkins.«dom»/job/«app»/build"),
    ],
    "flag-curl-bearer": [
        ("flag", "en", "curl -H \"Authorization: Bearer «tok»\" https://api.«dom»/v1/me"),
        ("flag", "en", "curl -sS --header 'Authorization: Token «tok»' https://«dom»/api/"),
    ],
    "flag-password-generic": [
        ("flag", "en", "./bin/«app» --db-host «host» --db-user «user» --db-password='«pw»'"),
        ("flag", "en", "java -jar admin.jar --username «user» --password «pws» --reset"),
        ("flag", "en", "rabbitmqctl add_user «user» «pws»"),
    ],
    "flag-token-generic": [
        ("flag", "en", "terraform login && «app» sync --token «tok» --verbose"),
        ("flag", "en", "codecov upload --token=«hex» -f coverage.xml"),
    ],
    "url-db-userinfo": [
        ("url", "en", "DATABASE_URL=postgres://«user»:«pwu»@«host»:5432/«db»"),
        ("url", "en", "mongodb://«user»:«pwu»@«host»:27017/«db»?authSource=admin"),
        ("url", "en", "amqp://«user»:«pwu»@«host»:5672/vhost"),
    ],
    "url-http-userinfo": [
        ("url", "en", "git clone https://«user»:«pws»@git.«dom»/team/«app».git"),
        ("url", "en", "https://«user»:«tok»@github.com/acme/«app».git"),
    ],
    "url-pct-userinfo": [
        ("url", "en", "SQLALCHEMY_DATABASE_URI=mysql+pymysql://«user»:«pwe»@«host»:3306/«db»"),
        ("url", "en", "redis://default:«pwe»@«host»:6379/2"),
    ],
    "jdbc-url-param": [
        ("url", "en", "jdbc:mysql://«host»:3306/«db»?user=«user»&password=«pws»&useSSL=true"),
        ("url", "en", "jdbc:sqlserver://«host»:1433;databaseName=«db»;user=«user»;password=«pws»"),
    ],
    "ado-connstring": [
        ("code", "en", "\"ConnectionStrings\": { \"Default\": \"Server=«host»;Database=«db»;User Id=«user»;Password=«pw»;TrustServerCertificate=True\" }"),
        ("code", "en", "Host=«host»;Port=5432;Username=«user»;Password=«pw»;Database=«db»"),
    ],
    "sql-create-user": [
        ("sql", "en", "CREATE USER '«user»'@'%' IDENTIFIED BY '«pw»';\nGRANT ALL PRIVILEGES ON «db».* TO '«user»'@'%';"),
        ("sql", "en", "ALTER ROLE «user» WITH LOGIN PASSWORD '«pw»';"),
    ],
    "http-basic-header": [
        ("http", "en", "POST /api/upload HTTP/1.1\nHost: «host»\nAuthorization: Basic «b64up»\nContent-Length: 512"),
        ("log", "en", "> GET /metrics HTTP/1.1\n> Authorization: Basic «b64up»\n< HTTP/1.1 200 OK"),
    ],
    "http-apikey-header": [
        ("http", "en", "GET /v1/orders?limit=50 HTTP/1.1\nHost: api.«dom»\nX-API-Key: «tok»"),
        ("http", "en", "curl 'https://«dom»/graphql' -H 'x-api-key: «hex»' --data-raw '{\"query\":\"{me{id}}\"}'"),
    ],
    "prose-en-password": [
        ("prose", "en", "The password for the «db» replica is «pw» - please don't share it outside the team."),
        ("prose", "en", "pw for the bastion: «pw»"),
        ("prose", "en", "FYI the admin login is «user» and the password is «pws»."),
    ],
    "prose-en-temp-creds": [
        ("prose", "en", "temporary creds: «user» / «pw» (expires Friday)"),
        ("prose", "en", "Use login «user», pass «pws» for the staging dashboard until SSO is fixed."),
    ],
    "prose-ko-password": [
        ("prose", "ko", "관리자 비밀번호는 «pws»입니다."),
        ("prose", "ko", "스테이징 DB 계정: «user} / 암호 «pw»".replace("«user}", "«user»")),
        ("prose", "ko", "공유기 관리자 페이지 비번 «pws» 로 바꿨어요"),
    ],
    "prose-ko-token": [
        ("prose", "ko", "배포용 토큰: «tok»"),
        ("prose", "ko", "젠킨스 API 토큰은 «hex» 이고 만료일은 없습니다."),
    ],
    "chat-password": [
        ("chat", "en", "«nick»: what's the root pw on «host»?\n«nick2»: «pw»\n«nick»: thx"),
        ("chat", "ko", "«nick»: «host» root 비번 뭐였죠?\n«nick2»: «pws» 입니다\n«nick»: 감사"),
    ],
    "commit-password": [
        ("commit", "en", "fix: use new db password\n\nChanged DB_PASSWORD to «pw» after the rotation on «date»."),
        ("commit", "en", "commit «sha»\nAuthor: «nick» <«nick»@example.com>\n\n    temp: set smtp pass to «pws» (revert later)"),
    ],
    "code-literal-password": [
        ("code", "en", "conn = psycopg2.connect(host=\"«host»\", user=\"«user»\", password=\"«pw»\", dbname=\"«db»\")"),
        ("code", "en", "db, err := sql.Open(\"mysql\", \"«user»:«pw»@tcp(«host»:3306)/«db»\")"),
        ("code", "en", "private static final String PASSWORD = \"«pw»\";"),
    ],
    "log-leaked-credential": [
        ("log", "en", "«date» «hh»:02,118 INFO  [http-nio-8080] GET /login?username=«user»&password=«pws» 302"),
        ("log", "en", "level=error msg=\"connection failed\" dsn=\"host=«host» user=«user» password=«pws» dbname=«db»\""),
    ],
    "markdown-creds-table": [
        ("markdown", "en", "| env | user | password |\n|-----|------|----------|\n| staging | «user» | «pw» |"),
        ("markdown", "ko", "## 접속 정보\n- 호스트: «host»\n- 계정: «user»\n- 비밀번호: `«pw»`"),
    ],
    "ldap-bind": [
        ("flag", "en", "ldapsearch -x -H ldap://«host» -D \"cn=«user»,dc=corp,dc=local\" -w '«pw»' -b dc=corp,dc=local"),
        ("yaml", "en", "ldap:\n  bindDN: cn=«user»,ou=svc,dc=corp,dc=local\n  bindPassword: \"«pw»\""),
    ],
    "ansible-inventory": [
        ("ini", "en", "[web]\n«host» ansible_user=«user» ansible_password=«pws»"),
        ("yaml", "en", "all:\n  vars:\n    ansible_become_pass: '«pw»'"),
    ],
    "wifi-psk": [
        ("ini", "en", "network={\n    ssid=\"Office-5G\"\n    psk=\"«pw»\"\n}"),
        ("yaml", "en", "wifis:\n  wlan0:\n    access-points:\n      \"Office-Guest\":\n        password: \"«pw»\""),
    ],
    "powershell-securestring": [
        ("code", "en", "$pass = ConvertTo-SecureString \"«pw»\" -AsPlainText -Force\n$cred = New-Object PSCredential(\"«user»\", $pass)"),
        ("code", "en", "Invoke-Sqlcmd -ServerInstance «host» -Username «user» -Password '«pw»' -Query 'SELECT 1'"),
    ],
    "net-use-windows": [
        ("shell", "en", "net use Z: \\\\fileserver\\share /user:CORP\\«user» «pws» /persistent:no"),
        ("shell", "en", "cmdkey /add:«host» /user:«user» /pass:«pws»"),
    ],
    "k8s-secret-stringdata": [
        ("yaml", "en", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: «app»-db\ntype: Opaque\nstringData:\n  password: «pws»"),
        ("yaml", "en", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ndata:\n  auth: «b64up»"),
    ],
    "gcp-service-account": [
        ("json", "en", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"«proj»\",\n  \"private_key_id\": \"«kid»\",\n  \"private_key\": \"«BLOCKJ»\\n\",\n  \"client_email\": \"«P_email»\",\n  \"client_id\": \"«P_cid»\"\n}"),
        ("shell", "en", "cat > sa.json <<'EOF'\n{\"type\":\"service_account\",\"client_email\":\"«P_email»\",\"private_key\":\"«BLOCKJ»\\n\"}\nEOF"),
    ],
    "kubeconfig-client-key": [
        ("kubeconfig", "en", "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: «P_ccd»\n    server: https://«dom»:6443\n  name: «cluster»\nusers:\n- name: admin\n  user:\n    client-key-data: «S_ckd»"),
        ("kubeconfig", "en", "users:\n- name: «cluster»-admin\n  user:\n    client-key-data: «S_ckd»"),
    ],
}

# ---- hard negatives (kind, form, lang, template); every «P_*» slot is a public substring
NEG_T = [
    ("neg-env-ref", "shell", "en", "export «env»=«P_bref2»\n./run.sh --verbose"),
    ("neg-env-ref", "dotenv", "en", "# copied from the vault at deploy time\n«env»=«P_bref»\nPORT=«port»"),
    ("neg-env-ref", "flag", "en", "mysql -h «host» -u «user» -p\"«P_dref»\" «db»"),
    ("neg-env-ref", "flag", "en", "curl -H \"Authorization: Bearer «P_dref»\" https://api.«dom»/v1/me"),
    ("neg-env-ref", "yaml", "en", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: «P_defref»"),
    ("neg-template-ref", "yaml", "en", "      - name: Publish\n        env:\n          «env»: «P_gha»\n        run: make publish"),
    ("neg-template-ref", "yaml", "en", "database:\n  password: \"«P_helm»\"\n  user: «user»"),
    ("neg-template-ref", "ini", "en", "[db]\nuser = «user»\npassword = «P_pct»"),
    ("neg-template-ref", "yaml", "en", "- name: write config\n  template:\n    src: app.conf.j2\n# inside: password={{ vault_db_password }}\n# token=«P_jinja»"),
    ("neg-template-ref", "hcl", "en", "resource \"aws_db_instance\" \"this\" {\n  username = \"«user»\"\n  password = «P_tf»\n}"),
    ("neg-template-ref", "makefile", "en", "login:\n\tdocker login -u ci -p «P_mref» registry.local"),
    ("neg-code-ref", "code", "en", "password = «P_pyref»\ntoken = «P_getenv»"),
    ("neg-code-ref", "code", "en", "const apiKey = «P_jsref»;\nif (!apiKey) throw new Error('missing key');"),
    ("neg-code-ref", "code", "en", "String secret = «P_javaref»;"),
    ("neg-code-ref", "code", "en", "client = Client(token=«P_settings», timeout=10)"),
    ("neg-placeholder", "dotenv", "en", "# placeholder values, replace before running\n«env»=«P_ph»"),
    ("neg-placeholder", "markdown", "en", "Set your key in `.env`:\n\n```\n«env»=«P_ph»\n```\n\nReplace the placeholder with the value from the dashboard."),
    ("neg-placeholder", "yaml", "en", "auth:\n  password: «P_ph»   # placeholder - docs example only"),
    ("neg-placeholder", "prose", "ko", "예시 설정에서 «env» 값은 «P_ph» 로 되어 있는데 이건 자리표시자라서 실제 값으로 바꿔야 합니다."),
    ("neg-redacted", "log", "en", "«date» «hh» INFO connecting user=«user» password=«P_red» host=«host»"),
    ("neg-redacted", "chat", "en", "«nick»: I pasted the config but scrubbed it: token=«P_red»\n«nick2»: thanks for redacting"),
    ("neg-public-id", "dotenv", "en", "STRIPE_PUBLISHABLE_KEY=«P_pk»\nNEXT_PUBLIC_SENTRY_DSN=«P_dsn»"),
    ("neg-public-id", "prose", "en", "The Twilio account SID «P_ac» shows up in every message log, it's only an identifier."),
    ("neg-public-id", "json", "en", "{\"web\": {\"client_id\": \"«P_gcid»\", \"javascript_origins\": [\"https://«dom»\"]}}"),
    ("neg-public-id", "code", "en", "const supabase = createClient(url, '«P_sbpub»'); // publishable key, safe in the browser"),
    ("neg-pubkey", "shell", "en", "$ cat ~/.ssh/id_ed25519.pub >> authorized_keys\n«P_ssh» «user»@laptop"),
    ("neg-pubkey", "pem", "en", "JWT verification key (public):\n«P_pub»"),
    ("neg-cert", "pem", "en", "# ca.crt\n«P_cert»"),
    ("neg-git-sha", "commit", "en", "commit «P_sha»\nAuthor: «nick» <«nick»@example.com>\nDate:   «date»\n\n    Bump version to «P_semver»"),
    ("neg-git-sha", "shell", "en", "$ git revert «P_sha7» && git push origin main"),
    ("neg-uuid", "log", "en", "«date»T«hh»:07Z INFO request_id=«P_uuid» tenant=«P_uuid2» status=200 latency=«n»ms"),
    ("neg-uuid", "json", "en", "{\"id\": \"«P_uuid»\", \"type\": \"invoice.paid\", \"livemode\": true}"),
    ("neg-hash", "shell", "en", "$ sha256sum «app»-«P_semver».tar.gz\n«P_sha256»  «app»-«P_semver».tar.gz"),
    ("neg-hash", "json", "en", "\"node_modules/left-pad\": {\n  \"version\": \"1.3.0\",\n  \"integrity\": \"«P_sri»\"\n}"),
    ("neg-hash", "yaml", "en", "image: ghcr.io/acme/«app»@«P_digest»"),
    ("neg-b64-data", "yaml", "en", "apiVersion: v1\nkind: ConfigMap\nbinaryData:\n  prefs.json: «P_b64»"),
    ("neg-b64-data", "shell", "en", "$ echo «P_b64t» | base64 -d"),
    ("neg-long-word", "prose", "en", "The stack trace points at «P_word» again, probably a bean wiring issue."),
    ("neg-ko-prose", "prose", "ko", "비밀번호는 메신저로 공유하지 말고 1Password 금고에 올려 주세요."),
    ("neg-ko-prose", "prose", "ko", "«nick»님, «app» 관리자 암호 변경은 보안팀 승인 후에 진행하겠습니다."),
    ("neg-ko-prose", "chat", "ko", "«nick»: 토큰 만료됐어요\n«nick2»: 금고에서 새로 발급받아서 «P_bref» 로 넣어 두었어요"),
    ("neg-password-policy", "prose", "en", "Password policy: at least «n» characters, one digit, one symbol (!@#$%), rotated every 90 days."),
    ("neg-password-policy", "dotenv", "en", "PASSWORD_MIN_LENGTH=«n»\nPASSWORD_REQUIRE_SYMBOL=true\nTOKEN_TTL_SECONDS=3600"),
    ("neg-secretish-key", "yaml", "en", "auth:\n  password_required: true\n  token_expiry: «n»h\n  secret_file: «P_secfile»\n  api_key_header: X-API-Key"),
    ("neg-secretish-key", "json", "en", "{\"password\": null, \"token\": false, \"secretRef\": \"«P_vault»\"}"),
    ("neg-docs-cli", "flag", "en", "docker run -d -p «port»:«port» --name «app» «app»:latest"),
    ("neg-docs-cli", "flag", "en", "ssh -p 2222 «user»@«host»   # -p is the port here, not a password"),
    ("neg-docs-cli", "prose", "en", "Run `mysql -u «user» -p` and type the password when prompted; never put it on the command line."),
    ("neg-url-no-password", "url", "en", "git clone git@github.com:acme/«app».git && cd «app»"),
    ("neg-url-no-password", "url", "en", "DATABASE_URL=postgres://«user»@«host»:5432/«db»?sslmode=require"),
    ("neg-url-no-password", "url", "en", "DATABASE_URL=postgres://«user»:«P_bref»@«host»:5432/«db»"),
    ("neg-http-no-secret", "http", "en", "GET /v1/items HTTP/1.1\nHost: api.«dom»\nAuthorization: Bearer «P_ph»"),
    ("neg-sql-no-secret", "sql", "en", "CREATE USER «user» IDENTIFIED WITH auth_socket;\nGRANT SELECT ON «db».* TO «user»;"),
    ("neg-sql-no-secret", "sql", "en", "UPDATE users SET password_hash = ? , updated_at = NOW() WHERE id = ?;"),
    ("neg-chat-no-secret", "chat", "en", "[«hh»] «nick»: where's the staging db password?\n[«hh»] «nick2»: in vault under «P_vault», ping me if you lack access"),
    ("neg-commit-no-secret", "commit", "en", "security: remove hardcoded credentials from «app» config\n\nValues now come from «P_arn»."),
    ("neg-k8s-secretref", "yaml", "en", "env:\n  - name: «env»\n    valueFrom:\n      secretKeyRef:\n        name: «app»-secrets\n        key: «envl»"),
    ("neg-cloud-ids", "prose", "en", "Deployed with «P_ami» under role «P_iamrole»; rollout id «P_uuid»."),
    ("neg-docs-example-key", "ini", "en", "# example from the AWS CLI docs - not a real key\n[default]\naws_access_key_id = «P_awsex»\naws_secret_access_key = «P_awsexs»"),
    ("neg-ui-strings", "json", "ko", "{\"login.password\": \"비밀번호\", \"login.password.hint\": \"8자 이상 입력하세요\", \"login.token\": \"인증 토큰\"}"),
    ("neg-object-ids", "log", "en", "webhook received «P_cus» for «P_slackch» (message «P_sm»)"),
    ("neg-misc-hex", "code", "en", ".btn-primary { color: «P_color»; } /* trace «P_trace» */"),
]

VENDOR_T += [
    ("prose", "ko", "«app» 서비스 «env» 값 공유합니다 → «V» (사내 위키에는 올리지 마세요)"),
    ("chat", "ko", "«nick»: 방금 «label_ko» 재발급했어요\n«nick»: «V»\n«nick2»: 확인했습니다"),
    ("commit", "ko", "fix: «label_ko» 갱신\n\n«env»=«V» 로 교체함"),
    ("yaml", "ko", "# 운영 환경 설정 (수정 금지)\n«envl»: «V»\ntimeout: 30"),
    ("shell", "ko", "# 테스트용, 나중에 지울 것\nexport «env»=«V»"),
    ("markdown", "ko", "| 항목 | 값 |\n|---|---|\n| «label_ko» | «V» |"),
    ("log", "en", "«date» «hh»:05 [worker-«n»] retrying with «envl»=«V» (attempt 2/5)"),
    ("code", "en", "headers = {\"Authorization\": f\"Bearer «V»\", \"User-Agent\": \"«app»/1.0\"}"),
]

STRUCT_T.update({
    "mixed-config-file": [
        ("dotenv", "en", "# «app» .env\nDB_HOST=«host»\nDB_USER=«user»\nDB_PASSWORD=«pws»\nSTRIPE_KEY=«ref»\nSESSION_SECRET=«tok»"),
        ("yaml", "en", "smtp:\n  user: «user»\n  password: '«pw»'\nsentry:\n  token: «ref»\nqueue:\n  api_key: «hex»"),
    ],
    "ko-en-mixed-note": [
        ("prose", "ko", "오늘 배포 정리: staging DB password 는 «pws», prod 는 «ref» 로 주입. API token «tok» 은 금요일에 폐기."),
        ("chat", "ko", "«nick»: prod redis password 알려주실 수 있나요?\n«nick2»: 「«pw»」 이거예요. 관련 티켓 «uuid» 참고"),
    ],
    "stacktrace-credential": [
        ("log", "en", "Traceback (most recent call last):\n  File \"/app/db.py\", line 17, in connect\n    engine = create_engine(\"postgresql://«user»:«pwu»@«host»/«db»\")\nsqlalchemy.exc.OperationalError: could not connect to server"),
        ("log", "en", "java.sql.SQLException: Access denied for user '«user»'@'10.0.0.5' (using password: YES)\n\tat com.mysql.cj.jdbc.ConnectionImpl.<init>(ConnectionImpl.java:448)\nCaused by config: jdbc.password=«pws»"),
    ],
})

NEG_T += [
    ("neg-ko-prose", "prose", "ko", "비밀번호 재설정 메일이 안 온다는 문의가 많아서 SMTP 설정을 확인하는 중입니다."),
    ("neg-ko-prose", "prose", "ko", "토큰 만료 시간은 «n»분이고, 갱신은 refresh token 으로 처리합니다."),
    ("neg-ko-prose", "prose", "ko", "암호화 키는 KMS «P_kms» 에서 관리하고 코드에는 넣지 않습니다."),
    ("neg-ko-prose", "chat", "ko", "«nick»: 관리자 비번 바뀌었나요?\n«nick2»: 네, 1Password 공유 금고 확인해 주세요"),
    ("neg-template-ref", "prose", "ko", "«env» 는 CI 변수로만 설정하세요. 예: «P_gha»"),
    ("neg-env-ref", "dotenv", "ko", "# 운영 비밀번호는 배포 시 주입됨\nDB_PASSWORD=«P_bref»"),
    ("neg-placeholder", "dotenv", "ko", "API_KEY=«P_ph»  # 여기에 발급받은 키를 넣으세요 (자리표시자)"),
    ("neg-hash", "code", "en", "version https://git-lfs.github.com/spec/v1\noid sha256:«P_sha256»\nsize «n»4512"),
    ("neg-uuid", "http", "en", "HTTP/1.1 502 Bad Gateway\nX-Correlation-ID: «P_uuid»\nRetry-After: 30"),
    ("neg-git-sha", "shell", "en", "git diff «P_sha»^ «P_sha» -- config/"),
    ("neg-public-id", "xml", "en", "<meta name=\"google-signin-client_id\" content=\"«P_gcid»\">"),
    ("neg-public-id", "dotenv", "en", "STRIPE_PK_TEST=«P_pkt»\nSTRIPE_SK_TEST=«P_bref»"),
    ("neg-pubkey", "shell", "en", "# ~/.ssh/known_hosts\n«host» «P_ssh»"),
    ("neg-b64-data", "code", "en", "<img alt=\"logo\" src=\"data:image/png;base64,«P_png»\"/>"),
    ("neg-long-word", "prose", "en", "The class name «P_word» is long and camel-cased but obviously not a key."),
    ("neg-password-policy", "prose", "ko", "비밀번호 규칙: «n»자 이상, 영문 대소문자/숫자/특수문자 조합, 90일마다 변경"),
    ("neg-secretish-key", "dotenv", "en", "TOKEN_REFRESH_ENABLED=true\nSECRET_ROTATION_DAYS=«n»\nPASSWORD_RESET_URL=https://«dom»/reset"),
    ("neg-secretish-key", "ini", "en", "spring.datasource.password=\nspring.datasource.hikari.maximum-pool-size=«n»"),
    ("neg-docs-cli", "flag", "en", "redis-cli -h «host» -p 6379 ping"),
    ("neg-docs-cli", "flag", "en", "psql -h «host» -p «port» -U «user» -W «db»"),
    ("neg-docs-cli", "flag", "en", "curl -u «user» https://«dom»/api/v1/me   # curl will prompt for the password"),
    ("neg-url-no-password", "url", "en", "https://«dom»/reset-password?expired=true&user=«user»"),
    ("neg-http-no-secret", "http", "en", "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer realm=\"«app»\", error=\"invalid_token\""),
    ("neg-sql-no-secret", "sql", "en", "SELECT id, username, password_changed_at FROM users WHERE last_login < NOW() - INTERVAL '90 days';"),
    ("neg-log-masked", "log", "en", "«date» «hh» INFO auth ok for «user», key fingerprint «P_md5»"),
    ("neg-commit-no-secret", "commit", "en", "docs: explain how to set «env» via «P_bref»"),
    ("neg-k8s-secretref", "yaml", "en", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: pg-«app», key: password}"),
    ("neg-markdown", "markdown", "en", "| Variable | Required | Description |\n|---|---|---|\n| `«env»` | yes | API token for «app» |\n| `«env2»` | no | defaults to «P_bref2» |"),
    ("neg-object-ids", "prose", "en", "Slack channel «P_slackch» got the alert for Stripe object «P_cus»."),
    ("neg-object-ids", "log", "en", "build «P_ghrun» for v«P_semver» on commit «P_sha7» passed"),
    ("neg-placeholder", "yaml", "en", "token: \"«P_ph»\"   # TODO: replace with the real one from the console"),
    ("neg-redacted", "prose", "ko", "로그에서 비밀번호는 «P_red» 로 마스킹되어 있어요"),
]

_A_MORE_STRUCT = {
    "toml-password": ("toml", "en", "# Cargo / app config\n[registries.internal]\nindex = \"https://«dom»/git/index\"\ntoken = \"«tok»\""),
    "pypirc": ("ini", "ko", "# 사내 패키지 저장소 업로드 설정\n[nexus]\nrepository = https://nexus.«dom»/repository/pypi-internal/\nusername = «user»\npassword = «pw»"),
    "pip-conf-index": ("shell", "en", "export PIP_EXTRA_INDEX_URL=https://«user»:«pws»@«dom»/pypi/simple\npip install acme-core"),
    "kubeconfig-token": ("kubeconfig", "en", "contexts:\n- context: {cluster: «app», user: bot}\n  name: «app»\nusers:\n- name: bot\n  user:\n    token: «hex»"),
    "java-properties": ("ini", "en", "# gradle.properties\nartifactoryUser=«user»\nartifactoryPassword=«pw»\norg.gradle.jvmargs=-Xmx2g"),
    "spring-yaml": ("yaml", "ko", "# 운영 프로파일\nspring:\n  redis:\n    host: «host»\n    password: \"«pw»\""),
    "helm-values": ("yaml", "en", "grafana:\n  adminUser: admin\n  adminPassword: \"«pw»\"\n  persistence:\n    enabled: true"),
    "gha-workflow": ("yaml", "en", "      - name: Login to registry\n        run: echo \"«pws»\" | docker login «dom» -u «user» --password-stdin"),
    "compose-env": ("yaml", "en", "  redis:\n    image: redis:7\n    command: redis-server --requirepass «pws»"),
    "systemd-env": ("systemd", "ko", "# 배포 스크립트가 생성함\n[Service]\nEnvironment=\"SPRING_DATASOURCE_PASSWORD=«pws»\"\nExecStart=/usr/bin/java -jar /opt/«app».jar"),
    "crontab-cred": ("shell", "en", "MAILTO=ops@example.com\n0 * * * * /opt/bin/sync --api-token «tok» >> /var/log/sync.log 2>&1"),
    "makefile-cred": ("makefile", "en", "PYPI_PASSWORD ?= «tok»\n\nupload:\n\ttwine upload -u __token__ -p $(PYPI_PASSWORD) dist/*"),
    "xml-password": ("xml", "en", "<configuration>\n  <property>\n    <name>javax.jdo.option.ConnectionPassword</name>\n    <value>«pwx»</value>\n  </property>\n</configuration>"),
    "flag-mysql": ("flag", "ko", "# 백업 서버에서 실행\nmysql -u«user» -p'«pw»' -h «host» -e 'SHOW SLAVE STATUS\\G'"),
    "flag-pgpassword": ("shell", "en", "docker exec -e PGPASSWORD='«pw»' pg psql -U «user» -d «db» -c '\\l'"),
    "flag-sshpass": ("flag", "en", "sshpass -p'«pws»' rsync -avz ./build/ «user»@«host»:/srv/www"),
    "flag-redis-cli": ("flag", "ko", "# 캐시 비우기\nredis-cli -h «host» -a «pws» FLUSHDB"),
    "redis-requirepass": ("yaml", "en", "redis:\n  config: |\n    requirepass «pws»\n    maxmemory-policy allkeys-lru"),
    "flag-curl-user": ("flag", "en", "curl -s --basic -u '«user»:«pw»' 'https://«dom»/rest/api/2/search?jql=project=OPS'"),
    "flag-curl-bearer": ("flag", "ko", "# 토큰 확인용\ncurl -H 'Authorization: Bearer «jwt»' https://api.«dom»/v1/me"),
    "flag-token-generic": ("flag", "en", "./deploy.sh --api-key «hex» --env production"),
    "url-http-userinfo": ("url", "ko", "사내 깃 주소: https://«user»:«pwu»@git.«dom»/infra/ansible.git"),
    "url-pct-userinfo": ("url", "en", "export DATABASE_URL=\"postgres://«user»:«pwe»@«host»:5432/«db»\""),
    "jdbc-url-param": ("url", "en", "datasource.url=jdbc:mariadb://«host»:3306/«db»?user=«user»&password=«pws»"),
    "ado-connstring": ("json", "en", "{\"ConnectionStrings\": {\"Reports\": \"Server=«host»;Database=«db»;User Id=«user»;Password=«pw»;\"}}"),
    "sql-create-user": ("sql", "en", "GRANT ALL ON «db».* TO '«user»'@'localhost' IDENTIFIED BY '«pw»';"),
    "http-basic-header": ("code", "en", "req.Header.Set(\"Authorization\", \"Basic «b64up»\")"),
    "http-apikey-header": ("code", "en", "requests.get(url, headers={\"X-API-KEY\": \"«tok»\"}, timeout=5)"),
    "prose-en-temp-creds": ("chat", "en", "«nick»: temporary creds for the audit box -> «user» / «pw», valid till Friday"),
    "prose-ko-token": ("prose", "ko", "모니터링 API 토큰 «tok» 을 임시로 설정했습니다. 다음 스프린트에 교체 예정."),
    "chat-password": ("chat", "en", "«nick»: db pass pls\n«nick2»: user «user» pass «pws»\n«nick»: thanks!"),
    "commit-password": ("commit", "ko", "chore: 테스트 서버 비밀번호 업데이트\n\nADMIN_PASSWORD=«pws»"),
    "log-leaked-credential": ("log", "en", "«date» «hh»:10 DEBUG HikariPool-1 - jdbcUrl=jdbc:postgresql://«host»/«db» username=«user» password=«pws»"),
    "markdown-creds-table": ("markdown", "en", "### Staging access\n\n```\nhost: «host»\nuser: «user»\npass: «pw»\n```"),
    "ldap-bind": ("ini", "en", "# sssd.conf\n[domain/corp]\nldap_default_bind_dn = cn=«user»,dc=corp,dc=local\nldap_default_authtok = «pw»"),
    "ansible-inventory": ("ini", "ko", "# 운영 서버 목록\n[db]\n«host» ansible_user=root ansible_ssh_pass=«pws»"),
    "wifi-psk": ("prose", "ko", "회의실 와이파이 Office-5G 비밀번호: «pws»"),
    "powershell-securestring": ("code", "en", "$Password = '«pw»'\n$Secure = ConvertTo-SecureString $Password -AsPlainText -Force"),
    "net-use-windows": ("shell", "en", "psexec \\\\«host» -u CORP\\«user» -p «pws» cmd /c ipconfig"),
    "k8s-secret-stringdata": ("yaml", "ko", "# 임시 시크릿 (나중에 sealed-secret 으로 교체)\napiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n  API_TOKEN: «tok»"),
    "gcp-service-account": ("shell", "en", "gcloud auth activate-service-account --key-file=<(echo '{\"type\":\"service_account\",\"client_email\":\"«P_email»\",\"private_key\":\"«BLOCKJ»\\n\"}')"),
    "kubeconfig-client-key": ("yaml", "en", "# ~/.kube/config (excerpt)\n  user:\n    client-key-data: «S_ckd»\n    username: «user»"),
    "mixed-config-file": ("ini", "en", "[app]\ndebug = false\nsecret_key = «tok»\n\n[database]\nuser = «user»\npassword = «pw»\nreplica_password = «ref»"),
    "ko-en-mixed-note": ("prose", "ko", "«nick»님 요청하신 DB 계정: user=«user», password=«pw» — prod 접근은 안 됩니다."),
    "stacktrace-credential": ("log", "en", "Error: connect ECONNREFUSED\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16) {\n  config: { host: '«host»', user: '«user»', password: '«pw»' }\n}"),
}
for _k, _v in _A_MORE_STRUCT.items():
    STRUCT_T[_k].append(_v)

_A_MORE_PAIR = {
    "aws-sts-credentials": ("prose", "en", "Temp creds from the SSO portal (1h): key «S_id», secret «S_sec», session token «S_tok»"),
    "google-oauth-client": ("yaml", "ko", "# 구글 로그인 설정\ngoogle:\n  client-id: «P_id»\n  client-secret: «S_sec»"),
    "azure-service-principal": ("prose", "en", "SP for the pipeline: appId «P_id», tenant «P_ten», secret «S_sec»"),
    "algolia-admin": ("prose", "ko", "알골리아 앱 ID «P_id», 관리자 키 «S_sec» (프론트엔드에 넣지 마세요)"),
    "alibaba-keypair": ("prose", "en", "Alibaba RAM user keys: AccessKey ID «S_id» and AccessKey Secret «S_sec»."),
    "tencent-keypair": ("shell", "en", "tccli configure set secretId «S_id» secretKey «S_sec» region ap-seoul"),
    "razorpay-keypair": ("prose", "en", "Razorpay live keys: key_id «P_id» (public) and key_secret «S_sec»."),
    "pusher-app": ("yaml", "en", "pusher:\n  app_id: \"«P_id»\"\n  key: «P_key»\n  secret: «S_sec»"),
    "cloudinary-url": ("prose", "ko", "클라우디너리 API key «P_id», API secret «S_sec» 입니다."),
    "mongodb-atlas-apikey": ("dotenv", "en", "ATLAS_PUBLIC_KEY=«P_id»\nATLAS_PRIVATE_KEY=«S_sec»\nATLAS_ORG_ID=«n»"),
}
for _k, _v in _A_MORE_PAIR.items():
    PAIR_T[_k].append(_v)
