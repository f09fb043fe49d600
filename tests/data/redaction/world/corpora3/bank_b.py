"""Template bank B -> used ONLY for world-holdout3 (holdout)."""

VENDOR_T = [
    ("dotenv", "en", "# local overrides, never commit\n«env»='«V»'"),
    ("shell", "en", "«env»=«V» npm run deploy:prod"),
    ("yaml", "en", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: «app»-config\ndata:\n  «env»: \"«V»\""),
    ("json", "en", "{\"env\": {\"«env»\": \"«V»\", \"NODE_ENV\": \"production\"}}"),
    ("prose", "en", "Heads up - I pasted the «label» into the runbook by mistake: «V». Rotating it after lunch."),
    ("chat", "en", "<«nick»> anyone have a working «label»?\n<«nick2»> try «V»\n<«nick»> ty"),
    ("commit", "en", "feat(«app»): wire up «label» (value «V») for the nightly job"),
    ("log", "en", "[«date» «hh»:44] WARN  «app».auth - upstream returned 401 for key=«V»"),
    ("http", "en", "POST /hooks/ingest HTTP/2\n:authority: «host»\nauthorization: Bearer «V»\ncontent-type: application/json"),
    ("code", "en", "package main\n\nconst «camel» = \"«V»\"\n"),
    ("code", "en", "let config = Config::builder().token(\"«V»\").build()?;"),
    ("code", "en", "$ curl https://api.«dom»/v1/ping -H 'authorization: bearer «V»'"),
    ("toml", "en", "# ~/.config/«app»/credentials.toml\n[profile.prod]\napi_token = \"«V»\"\n"),
    ("markdown", "en", "### Credentials\n\n- **«label»**: «V»\n- owner: platform team"),
    ("prose", "ko", "오늘 회의 메모 - «label_ko» 교체 완료, 새 값은 «V» 입니다."),
    ("chat", "ko", "[«hh»] «nick»: «env» 값이 뭐였죠?\n[«hh»] «nick2»: «V» 요"),
    ("prose", "ko", "참고로 «env» 는 «V» 이고 운영 환경에서만 씁니다."),
    ("flag", "en", "«app» --api-key=«V» --region ap-northeast-2 sync"),
    ("ini", "en", "; generated «date»\n[credentials]\n«envl»=«V»"),
    ("shell", "en", "kubectl create secret generic «app»-secrets --from-literal=«envl»=«V»"),
    ("prose", "en", "Note to self: «label» for the «app» sandbox = «V»"),
    ("log", "en", "Exception in thread \"main\" java.lang.IllegalStateException: token «V» is not authorized\n\tat com.acme.«app».Client.call(Client.java:88)"),
    ("xml", "en", "<property name=\"«envl»\">«V»</property>"),
    ("prose", "ko", "급하면 «V» 로 테스트해 보세요 («label_ko», 다음주 폐기 예정)"),
]

PAIR_T = {
    "aws-keypair": [
        ("json", "en", "{\"AccessKey\": {\"UserName\": \"«user»\", \"AccessKeyId\": \"«S_id»\", \"Status\": \"Active\", \"SecretAccessKey\": \"«S_sec»\"}}"),
        ("chat", "en", "<«nick»> key id «S_id»\n<«nick»> secret «S_sec»\n<«nick2»> got it"),
        ("code", "en", "s3 = boto3.client('s3', aws_access_key_id='«S_id»', aws_secret_access_key='«S_sec»')"),
    ],
    "aws-sts-credentials": [
        ("ini", "en", "[temp]\naws_access_key_id=«S_id»\naws_secret_access_key=«S_sec»\naws_session_token=«S_tok»"),
        ("shell", "en", "AWS_ACCESS_KEY_ID=«S_id» AWS_SECRET_ACCESS_KEY=«S_sec» AWS_SESSION_TOKEN=«S_tok» aws s3 ls"),
    ],
    "twilio-sid-token": [
        ("flag", "en", "curl -X POST https://api.twilio.com/2010-04-01/Accounts/«P_id»/Messages.json -u «P_id»:«S_sec»"),
        ("yaml", "en", "twilio:\n  account_sid: «P_id»\n  auth_token: «S_sec»"),
        ("prose", "ko", "트윌리오 계정 SID는 «P_id», 인증 토큰은 «S_sec» 입니다."),
    ],
    "google-oauth-client": [
        ("yaml", "en", "oauth:\n  google:\n    clientId: «P_id»\n    clientSecret: «S_sec»"),
        ("prose", "en", "OAuth app registered. client id «P_id», secret «S_sec»."),
    ],
    "azure-service-principal": [
        ("dotenv", "en", "AZURE_TENANT_ID=«P_ten»\nAZURE_CLIENT_ID=«P_id»\nAZURE_CLIENT_SECRET=«S_sec»"),
        ("hcl", "en", "provider \"azurerm\" {\n  features {}\n  tenant_id     = \"«P_ten»\"\n  client_id     = \"«P_id»\"\n  client_secret = \"«S_sec»\"\n}"),
    ],
    "algolia-admin": [
        ("yaml", "en", "search:\n  algolia_app: «P_id»\n  algolia_admin_api_key: «S_sec»"),
        ("prose", "en", "Algolia app «P_id» — admin API key is «S_sec», keep it off the frontend."),
    ],
    "alibaba-keypair": [
        ("dotenv", "en", "ALIBABA_CLOUD_ACCESS_KEY_ID=«S_id»\nALIBABA_CLOUD_ACCESS_KEY_SECRET=«S_sec»"),
        ("json", "en", "{\"mode\": \"AK\", \"access_key_id\": \"«S_id»\", \"access_key_secret\": \"«S_sec»\", \"region_id\": \"ap-southeast-1\"}"),
    ],
    "tencent-keypair": [
        ("code", "en", "cred = credential.Credential(\"«S_id»\", \"«S_sec»\")"),
        ("yaml", "en", "tencentcloud:\n  secret_id: «S_id»\n  secret_key: «S_sec»"),
    ],
    "razorpay-keypair": [
        ("flag", "en", "curl -u «P_id»:«S_sec» https://api.razorpay.com/v1/payments"),
        ("yaml", "en", "razorpay:\n  key_id: «P_id»\n  key_secret: «S_sec»"),
    ],
    "pusher-app": [
        ("json", "en", "{\"appId\": \"«P_id»\", \"key\": \"«P_key»\", \"secret\": \"«S_sec»\", \"cluster\": \"eu\"}"),
        ("prose", "en", "Pusher: app «P_id», key «P_key», secret «S_sec»."),
    ],
    "cloudinary-url": [
        ("shell", "en", "export CLOUDINARY_URL=\"cloudinary://«P_id»:«S_sec»@«cloud»\""),
        ("yaml", "en", "cloudinary:\n  cloud_name: «cloud»\n  api_key: \"«P_id»\"\n  api_secret: «S_sec»"),
    ],
    "mongodb-atlas-apikey": [
        ("dotenv", "en", "MONGODB_ATLAS_PUBLIC_KEY=«P_id»\nMONGODB_ATLAS_PRIVATE_KEY=«S_sec»"),
        ("hcl", "en", "provider \"mongodbatlas\" {\n  public_key  = \"«P_id»\"\n  private_key = \"«S_sec»\"\n}"),
    ],
}

KEY_T = [
    ("hcl", "en", "raw", "resource \"tls_private_key_import\" \"k\" {\n  pem = <<EOT\n«BLOCK»\nEOT\n}"),
    ("code", "en", "raw", "SIGNING_KEY = \"\"\"«BLOCK»\n\"\"\""),
    ("yaml", "en", "indent4", "stringData:\n  id_key: |-\n    «BLOCK»"),
    ("json", "en", "json", "{\"keys\":[{\"kid\":\"«app»-1\",\"pem\":\"«BLOCK»\"}]}"),
    ("log", "en", "raw", "«date» «hh»:09 DEBUG loaded key material from vault:\n«BLOCK»"),
    ("markdown", "ko", "raw", "배포 서버 키 (임시)\n\n```\n«BLOCK»\n```"),
]

STRUCT_T = {
    "sh-export-password": [
        ("shell", "en", "#!/usr/bin/env bash\nset -euo pipefail\nDB_PASS='«pw»'\npsql \"host=«host» user=«user» password=$DB_PASS\""),
        ("shell", "en", "$ export MYSQL_PWD=«pws»; mysql -u «user» -e 'show databases'"),
        ("shell", "ko", "# 운영 계정\nROOT_PASSWORD=«pws» ./bootstrap.sh"),
    ],
    "dotenv-password": [
        ("dotenv", "en", "# .env.local\nREDIS_PASSWORD=\"«pw»\""),
        ("dotenv", "en", "APP_KEY=base64:«tok»\nDB_PASSWORD=«pws»"),
        ("dotenv", "ko", "# 로컬 개발용\nPOSTGRES_PASSWORD=«pws»"),
    ],
    "ini-password": [
        ("ini", "en", "; odbc.ini\n[Reporting]\nDriver=PostgreSQL\nServername=«host»\nUsername=«user»\nPassword=«pw»"),
        ("ini", "en", "[ldap]\nbind_user=«user»\nbind_pw=«pw»"),
        ("ini", "en", "[mail]\nsmtp_password : «pw»"),
    ],
    "yaml-password": [
        ("yaml", "en", "production:\n  adapter: postgresql\n  username: «user»\n  password: <%= '«pw»' %>"),
        ("yaml", "en", "mqtt:\n  broker: «host»\n  credentials:\n    user: «user»\n    secret: \"«pw»\""),
        ("yaml", "en", "- name: «app»\n  db_password: '«pw»'"),
    ],
    "json-password": [
        ("json", "en", "[{\"host\":\"«host»\",\"port\":«port»,\"login\":\"«user»\",\"pwd\":\"«pw»\"}]"),
        ("json", "en", "{\"mail\":{\"auth\":{\"user\":\"«user»\",\"pass\":\"«pw»\"}}}"),
        ("json", "en", "{\n    \"clientSecret\": \"«tok»\",\n    \"audience\": \"https://api.«dom»\"\n}"),
    ],
    "toml-password": [
        ("toml", "en", "[[servers]]\nname = \"«app»\"\npassword = '«pw»'\n"),
        ("toml", "en", "[tool.poetry.http-basic.private]\nusername = \"«user»\"\npassword = \"«pw»\""),
    ],
    "netrc": [
        ("netrc", "en", "# ~/.netrc (chmod 600)\nmachine «host» login «user» password «pw» account ops"),
        ("netrc", "en", "# ~/.netrc for the artifact mirror\nmachine artifacts.«dom»\nlogin «user»\npassword «tok»"),
        ("netrc", "ko", "# 사내 미러용\nmachine «host» login «user» password «pw»"),
    ],
    "npmrc-token": [
        ("npmrc", "en", "//gitlab.«dom»/api/v4/projects/42/packages/npm/:_authToken=«tok»"),
        ("npmrc", "en", "; project .npmrc\n//registry.«dom»/:_password=«b64up»\n//registry.«dom»/:username=«user»"),
        ("npmrc", "en", "$ npm config set //registry.npmjs.org/:_authToken «tok»"),
    ],
    "pypirc": [
        ("ini", "en", "[testpypi]\nrepository = https://test.pypi.org/legacy/\nusername = __token__\npassword = «tok»"),
        ("ini", "en", "# ~/.pypirc\n[artifactory]\nrepository: https://«dom»/api/pypi/pypi-local\nusername: «user»\npassword: «pw»"),
    ],
    "pip-conf-index": [
        ("ini", "en", "# /etc/pip.conf\n[global]\nextra-index-url = https://«user»:«pws»@«host»/simple/"),
        ("dotenv", "en", "PIP_INDEX_URL=https://«user»:«pwu»@pkgs.«dom»/pypi/simple"),
    ],
    "docker-config-auth": [
        ("json", "en", "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"«b64up»\",\"email\":\"«user»@example.com\"}}}"),
        ("shell", "en", "$ docker login --username «user» --password '«pw»' «host»:5000"),
        ("json", "en", "{\"auths\": {\"«host»\": {\"username\": \"«user»\", \"password\": \"«pw»\"}}}"),
    ],
    "kubeconfig-token": [
        ("kubeconfig", "en", "apiVersion: v1\nkind: Config\ncurrent-context: prod\nusers:\n- name: sa-deployer\n  user:\n    token: «tok»"),
        ("shell", "en", "kubectl --server https://«dom»:6443 --token=«jwt» get pods -A"),
    ],
    "hcl-password": [
        ("hcl", "en", "module \"rds\" {\n  source          = \"./modules/rds\"\n  master_username = \"«user»\"\n  master_password = \"«pw»\"\n}"),
        ("hcl", "en", "# terraform.tfvars\ndb_password = \"«pw»\"\nenvironment = \"prod\""),
        ("hcl", "en", "provider \"vault\" {\n  address = \"https://vault.«dom»\"\n  token   = \"«tok»\"\n}"),
    ],
    "java-properties": [
        ("ini", "en", "# application.properties\ndb.password = «pw»\ndb.pool.size = 10"),
        ("ini", "en", "jdbc.user=«user»\njdbc.pass=«pw»"),
    ],
    "spring-yaml": [
        ("yaml", "en", "spring:\n  mail:\n    host: smtp.«dom»\n    username: «user»\n    password: \"«pw»\""),
        ("yaml", "en", "spring:\n  security:\n    user:\n      name: «user»\n      password: «pws»"),
    ],
    "helm-values": [
        ("yaml", "en", "global:\n  postgresql:\n    auth:\n      postgresPassword: «pws»"),
        ("shell", "en", "helm upgrade --install «app» bitnami/mysql --set auth.rootPassword='«pw»' -n data"),
    ],
    "gha-workflow": [
        ("yaml", "en", "name: release\non: push\njobs:\n  publish:\n    steps:\n      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: «tok»"),
        ("yaml", "en", "    services:\n      postgres:\n        image: postgres\n        env:\n          POSTGRES_PASSWORD: «pws»"),
    ],
    "compose-env": [
        ("yaml", "en", "version: \"3.9\"\nservices:\n  rabbit:\n    image: rabbitmq:3-management\n    environment:\n      RABBITMQ_DEFAULT_USER: «user»\n      RABBITMQ_DEFAULT_PASS: \"«pws»\""),
        ("yaml", "en", "  grafana:\n    environment:\n      - GF_SECURITY_ADMIN_PASSWORD=«pws»"),
    ],
    "systemd-env": [
        ("systemd", "en", "# /etc/systemd/system/«app».service\n[Unit]\nDescription=«app»\n\n[Service]\nEnvironment=REDIS_PASSWORD=«pws»\nExecStart=/usr/local/bin/«app»"),
        ("systemd", "en", "[Service]\nExecStart=/opt/exporter --web.listen-address=:9187 --db.password=«pws»"),
    ],
    "crontab-cred": [
        ("shell", "en", "# m h dom mon dow command\n30 2 * * 1 /usr/bin/mysqldump -u«user» -p«pws» «db» | gzip > /srv/bak/«db».gz"),
        ("shell", "en", "@daily rsync -a /data «user»@«host»:/backup --password-file=/dev/null; SMB_PASS=«pws» /opt/sync.sh"),
    ],
    "makefile-cred": [
        ("makefile", "en", "export SONAR_TOKEN=«hex»\n\nscan:\n\tsonar-scanner -Dsonar.host.url=https://«dom»"),
        ("makefile", "en", "DB_URL = postgres://«user»:«pws»@localhost:5432/«db»\n\nmigrate:\n\tmigrate -database $(DB_URL) up"),
    ],
    "xml-password": [
        ("xml", "en", "<datasource jndi-name=\"java:/«app»DS\">\n  <security>\n    <user-name>«user»</user-name>\n    <password>«pwx»</password>\n  </security>\n</datasource>"),
        ("xml", "en", "<Resource name=\"jdbc/main\" username=\"«user»\" password=\"«pwx»\" url=\"jdbc:postgresql://«host»/«db»\"/>"),
    ],
    "flag-mysql": [
        ("flag", "en", "$ mysql --host=«host» --user=«user» --password=«pws» -e 'SELECT NOW()'"),
        ("flag", "en", "mysqladmin -u root -p'«pw»' status"),
    ],
    "flag-pgpassword": [
        ("flag", "en", "export PGPASSWORD=«pws}\npsql -h «host» -U «user» «db»".replace("«pws}", "«pws»")),
        ("flag", "en", "env PGPASSWORD=\"«pws»\" pg_dumpall -h «host» -U postgres > all.sql"),
    ],
    "flag-sshpass": [
        ("flag", "en", "for h in web1 web2; do sshpass -p \"«pws»\" ssh «user»@$h uptime; done"),
        ("flag", "en", "rsync -e \"sshpass -p '«pw»' ssh -p 2222\" -av ./dist/ «user»@«host»:/var/www/"),
    ],
    "flag-redis-cli": [
        ("flag", "en", "$ redis-cli -u redis://default:«pws»@«host»:6379 ping"),
        ("flag", "en", "redis-cli -h «host» --user «user» --pass '«pw»' KEYS 'session:*'"),
    ],
    "redis-requirepass": [
        ("shell", "en", "redis-server --requirepass «pws» --appendonly yes"),
        ("shell", "en", "127.0.0.1:6379> CONFIG SET requirepass \"«pw»\"\nOK"),
    ],
    "flag-curl-user": [
        ("flag", "en", "curl -fsSL --user «user»:«pws» -T build.zip https://nexus.«dom»/repository/raw/"),
        ("flag", "en", "wget --http-user=«user» --http-password='«pw»' https://«dom»/private/data.csv"),
    ],
    "flag-curl-bearer": [
        ("flag", "en", "curl https://«dom»/api/v2/items -H 'Authorization: Bearer «jwt»'"),
        ("flag", "en", "http GET https://api.«dom»/me \"Authorization:Bearer «tok»\""),
    ],
    "flag-password-generic": [
        ("flag", "en", "mongosh \"mongodb://«host»:27017\" --username «user» --password '«pw»' --authenticationDatabase admin"),
        ("flag", "en", "keytool -importkeystore -srckeystore in.p12 -srcstorepass «pws» -destkeystore out.jks -deststorepass «pws»"),
        ("flag", "en", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«pws»"),
    ],
    "flag-token-generic": [
        ("flag", "en", "vercel deploy --prod --token «tok»"),
        ("flag", "en", "gh-release-upload --api-token=«tok» --tag v1.«n».0"),
    ],
    "url-db-userinfo": [
        ("url", "en", "spring.data.mongodb.uri=mongodb+srv://«user»:«pwu»@cluster0.ab1cd.mongodb.net/«db»"),
        ("url", "en", "CELERY_BROKER_URL=redis://:«pwu»@«host»:6379/1"),
        ("url", "ko", "접속 URL: postgresql://«user»:«pwu»@«host»/«db»"),
    ],
    "url-http-userinfo": [
        ("url", "en", "https://«user»:«pws»@«host»/artifactory/api/npm/npm-remote/"),
        ("url", "en", "proxy = http://«user»:«pwu»@proxy.corp.local:3128"),
    ],
    "url-pct-userinfo": [
        ("url", "en", "postgresql://«user»:«pwe»@«host»:5432/«db»?sslmode=require"),
        ("url", "en", "amqps://«user»:«pwe»@b-1234.mq.ap-northeast-2.amazonaws.com:5671"),
    ],
    "jdbc-url-param": [
        ("url", "en", "url: jdbc:postgresql://«host»:5432/«db»?user=«user»&password=«pws»"),
        ("url", "en", "jdbc:oracle:thin:«user»/«pws»@//«host»:1521/ORCLPDB1"),
    ],
    "ado-connstring": [
        ("code", "en", "var cs = \"Data Source=«host»;Initial Catalog=«db»;User ID=«user»;Password=«pw»\";"),
        ("dotenv", "en", "AZURE_SQL_CONNECTIONSTRING=Server=tcp:«host»,1433;Uid=«user»;Pwd=«pw»;Encrypt=yes"),
    ],
    "sql-create-user": [
        ("sql", "en", "CREATE USER «user» IDENTIFIED BY \"«pw»\" DEFAULT TABLESPACE users;"),
        ("sql", "en", "CREATE ROLE «user» LOGIN PASSWORD '«pw»' VALID UNTIL '2025-12-31';"),
    ],
    "http-basic-header": [
        ("flag", "en", "curl -H \"Authorization: Basic «b64up»\" https://«dom»/api/health"),
        ("http", "en", "PUT /repository/releases/app.jar HTTP/1.1\r\nauthorization: basic «b64up»\r\nhost: «host»"),
    ],
    "http-apikey-header": [
        ("http", "en", "POST /api/v1/events HTTP/1.1\nDD-API-KEY: «hex»\nContent-Type: application/json"),
        ("code", "en", "fetch(`https://api.«dom»/v1/search`, { headers: { 'X-Api-Token': '«tok»' } })"),
    ],
    "prose-en-password": [
        ("prose", "en", "Reminder: wifi for the offsite is «pw»."),
        ("prose", "en", "I reset your account - new password: «pw» (please change it on first login)"),
        ("prose", "en", "the sa password on «host» is still «pws», we should really rotate it"),
    ],
    "prose-en-temp-creds": [
        ("prose", "en", "Guest access for the demo -> user «user», pwd «pw»"),
        ("prose", "en", "Creds for the vendor portal (temporary): «user»:«pws»"),
    ],
    "prose-ko-password": [
        ("prose", "ko", "운영 DB 비밀번호를 «pw» 로 변경했습니다."),
        ("prose", "ko", "와이파이 암호는 «pws» 예요"),
        ("prose", "ko", "초기 비밀번호: «pws» (첫 로그인 후 변경 필수)"),
    ],
    "prose-ko-token": [
        ("prose", "ko", "슬랙 알림용 시크릿 키는 «tok» 입니다. 외부 공유 금지"),
        ("prose", "ko", "API 키 → «hex»"),
    ],
    "chat-password": [
        ("chat", "en", "[«hh»] «nick»: vpn pass?\n[«hh»] «nick2»: «pws»"),
        ("chat", "ko", "<«nick»> 젠킨스 admin 비번 알려주세요\n<«nick2»> «pw»"),
    ],
    "commit-password": [
        ("commit", "en", "Merge branch 'hotfix'\n\n* set admin password to «pw» for the demo tenant"),
        ("commit", "ko", "설정 수정: DB 비밀번호 «pws» 반영"),
    ],
    "code-literal-password": [
        ("code", "en", "const pool = new Pool({ host: '«host»', user: '«user»', password: '«pw»', database: '«db»' });"),
        ("code", "en", "$db_password = '«pw»';\n$pdo = new PDO($dsn, '«user»', $db_password);"),
        ("code", "en", "let password = \"«pw»\"  // TODO move to keychain"),
    ],
    "log-leaked-credential": [
        ("log", "en", "«date»T«hh»:19.220Z ERROR Failed login attempt user=«user» password=«pws» ip=10.2.3.4"),
        ("log", "en", "DEBUG sqlalchemy.engine: connecting with url=mysql://«user»:«pws»@«host»/«db»"),
    ],
    "markdown-creds-table": [
        ("markdown", "en", "| Service | Login | Secret |\n| --- | --- | --- |\n| Grafana | «user» | «pw» |\n| Kibana | elastic | see vault |"),
        ("markdown", "ko", "| 항목 | 값 |\n|---|---|\n| 계정 | «user» |\n| 비밀번호 | «pws» |"),
    ],
    "ldap-bind": [
        ("ini", "en", "[ldap]\nurl = ldaps://«host»:636\nbind_dn = uid=«user»,cn=users,dc=corp\nbind_password = «pw»"),
        ("flag", "en", "ldapmodify -H ldap://«host» -D cn=admin,dc=example,dc=org -w «pws» -f add.ldif"),
    ],
    "ansible-inventory": [
        ("yaml", "en", "db_servers:\n  hosts:\n    «host»:\n      ansible_ssh_pass: \"«pw»\""),
        ("flag", "en", "ansible-playbook site.yml -e 'ansible_become_password=«pws}'".replace("«pws}", "«pws»")),
    ],
    "wifi-psk": [
        ("shell", "en", "nmcli dev wifi connect \"Office-5G\" password '«pw»'"),
        ("ini", "en", "[wifi-security]\nkey-mgmt=wpa-psk\npsk=«pws»"),
    ],
    "powershell-securestring": [
        ("code", "en", "$secure = \"«pw»\" | ConvertTo-SecureString -AsPlainText -Force"),
        ("code", "en", "New-LocalUser -Name «user» -Password (ConvertTo-SecureString '«pw»' -AsPlainText -Force)"),
    ],
    "net-use-windows": [
        ("shell", "en", "C:\\> runas /user:«user» cmd  (typed «pws» at the prompt, it's the same as last year)"),
        ("shell", "en", "mount -t cifs //nas/share /mnt/share -o username=«user»,password=«pws»"),
    ],
    "k8s-secret-stringdata": [
        ("yaml", "en", "kind: Secret\napiVersion: v1\nmetadata:\n  name: smtp\nstringData:\n  SMTP_USER: «user»\n  SMTP_PASS: \"«pw»\""),
        ("shell", "en", "kubectl create secret generic db-creds --from-literal=username=«user» --from-literal=password='«pw»'"),
    ],
    "gcp-service-account": [
        ("dotenv", "en", "GOOGLE_CREDENTIALS={\"type\":\"service_account\",\"project_id\":\"«proj»\",\"private_key\":\"«BLOCKJ»\\n\",\"client_email\":\"«P_email»\"}"),
        ("code", "en", "creds = service_account.Credentials.from_service_account_info({\n    \"type\": \"service_account\",\n    \"private_key\": \"«BLOCKJ»\\n\",\n    \"client_email\": \"«P_email»\",\n    \"token_uri\": \"https://oauth2.googleapis.com/token\",\n})"),
    ],
    "kubeconfig-client-key": [
        ("kubeconfig", "en", "- name: «cluster»\n  user:\n    client-certificate-data: «P_ccd»\n    client-key-data: «S_ckd»"),
        ("shell", "en", "echo «S_ckd» | base64 -d > ~/.kube/admin.key"),
    ],
}

NEG_T = [
    ("neg-env-ref", "shell", "en", "#!/bin/sh\npsql \"postgresql://«user»:«P_dref»@«host»/«db»\" -c '\\dt'"),
    ("neg-env-ref", "yaml", "en", "steps:\n  - script: echo \"token is set: ${#«env»}\"\n    env:\n      «env»: «P_bref»"),
    ("neg-env-ref", "systemd", "en", "[Service]\nEnvironmentFile=/etc/«app»/env\nExecStart=/usr/bin/«app» --password «P_bref»"),
    ("neg-env-ref", "flag", "en", "sshpass -p \"«P_dref»\" ssh «user»@«host» 'uptime'"),
    ("neg-env-ref", "flag", "en", "redis-cli -h «host» -a «P_bref» --no-auth-warning ping"),
    ("neg-template-ref", "yaml", "en", "spring:\n  datasource:\n    password: «P_springref»"),
    ("neg-template-ref", "yaml", "en", "production:\n  password: «P_erb»"),
    ("neg-template-ref", "yaml", "en", "with:\n  username: ${{ github.actor }}\n  password: «P_gha»"),
    ("neg-template-ref", "ini", "en", "[smtp]\nlogin = «user»\npass = «P_pct»\n; interpolated by ConfigParser"),
    ("neg-template-ref", "yaml", "en", "stringData:\n  token: \"«P_helm»\""),
    ("neg-template-ref", "hcl", "en", "provider \"github\" {\n  token = «P_tf»\n  owner = \"acme\"\n}"),
    ("neg-code-ref", "code", "en", "db_pass = «P_getenv» or ''\nengine = create_engine(url, connect_args={'password': db_pass})"),
    ("neg-code-ref", "code", "en", "headers: { Authorization: `Bearer ${«P_jsref»}` }"),
    ("neg-code-ref", "code", "en", "password := os.Getenv(\"«env»\")"),
    ("neg-code-ref", "code", "en", "SECRET_KEY = «P_pyref»  # loaded at runtime"),
    ("neg-placeholder", "json", "en", "{\n  \"apiKey\": \"«P_ph»\",\n  \"_comment\": \"placeholder: paste your own key\"\n}"),
    ("neg-placeholder", "prose", "en", "In the README the password is shown as «P_ph», which is just a placeholder for the docs."),
    ("neg-placeholder", "toml", "en", "[auth]\n# fill in locally; this is a template\ntoken = \"«P_ph»\""),
    ("neg-placeholder", "markdown", "ko", "| 변수 | 설명 |\n|---|---|\n| `«env»` | 발급받은 키 (예: «P_ph») |"),
    ("neg-redacted", "log", "en", "[«date» «hh»] POST /login body={\"user\":\"«user»\",\"password\":\"«P_red»\"} -> 200"),
    ("neg-redacted", "prose", "en", "Screenshot attached, the token is blacked out as «P_red» so it's fine to share."),
    ("neg-public-id", "yaml", "en", "twilio:\n  account_sid: «P_ac»\n  auth_token: «P_bref»"),
    ("neg-public-id", "code", "en", "const stripe = Stripe('«P_pk»');"),
    ("neg-public-id", "code", "en", "Sentry.init({ dsn: \"«P_dsn»\", tracesSampleRate: 0.2 });"),
    ("neg-public-id", "code", "en", "<script src=\"https://api.mapbox.com/mapbox-gl-js/v3.0.0/mapbox-gl.js\"></script>\n<script>mapboxgl.accessToken = '«P_mbpk»';</script>"),
    ("neg-public-id", "dotenv", "en", "GITHUB_CLIENT_ID=«P_clientid»\nGITHUB_CLIENT_SECRET=«P_bref»"),
    ("neg-pubkey", "yaml", "en", "users:\n  - name: «user»\n    ssh_authorized_keys:\n      - «P_ssh»"),
    ("neg-pubkey", "pem", "ko", "서명 검증용 공개키입니다:\n«P_pub»"),
    ("neg-cert", "prose", "en", "Here is the public CA chain for the ingress, safe to share:\n«P_cert»"),
    ("neg-git-sha", "log", "en", "Run actions/checkout@v4\nHEAD is now at «P_sha7» Merge pull request #«n»\nSyncing repository: acme/«app» («P_sha»)"),
    ("neg-git-sha", "prose", "ko", "«P_sha» 커밋에서 회귀가 생긴 것 같아요"),
    ("neg-uuid", "http", "en", "HTTP/1.1 201 Created\nX-Request-Id: «P_uuid»\nLocation: /v1/jobs/«P_uuid2»"),
    ("neg-uuid", "sql", "en", "SELECT * FROM sessions WHERE user_id = '«P_uuid»' AND revoked = false;"),
    ("neg-hash", "prose", "en", "MD5 of the firmware blob is «P_md5», matches the vendor page."),
    ("neg-hash", "json", "en", "{\"name\":\"lodash\",\"integrity\":\"«P_npmint»\"}"),
    ("neg-hash", "shell", "en", "docker pull nginx@«P_digest»"),
    ("neg-b64-data", "json", "en", "{\"payload\": \"«P_b64»\", \"encoding\": \"base64\"}"),
    ("neg-b64-data", "prose", "en", "The cookie value «P_b64» is just base64 of the UI prefs."),
    ("neg-long-word", "code", "en", "@Bean\npublic «P_word» «P_word»Bean() { return new «P_word»(); }"),
    ("neg-ko-prose", "prose", "ko", "관리자 비밀번호를 잊어버리셨다면 보안팀에 초기화 요청을 넣어 주세요."),
    ("neg-ko-prose", "prose", "ko", "토큰은 절대 커밋하지 말고, 환경 변수 «P_dref» 로 주입하세요."),
    ("neg-ko-prose", "chat", "ko", "<«nick»> 암호 정책 바뀐 거 아세요?\n<«nick2»> 네 «n»자 이상에 특수문자 필수래요"),
    ("neg-password-policy", "yaml", "en", "password_policy:\n  min_length: «n»\n  require_uppercase: true\n  max_age_days: 90\n  history: 5"),
    ("neg-password-policy", "prose", "en", "Tokens expire after «n» minutes; refresh tokens last 30 days."),
    ("neg-secretish-key", "ini", "en", "[security]\nsecret_key_file = «P_secfile»\nencrypt_passwords = yes\ntoken_length = «n»"),
    ("neg-secretish-key", "toml", "en", "[server]\npassword_auth = false\napi_key_env = \"«env»\"\nmax_tokens = 4096"),
    ("neg-docs-cli", "flag", "en", "kubectl port-forward svc/«app» «port»:«port» -n prod"),
    ("neg-docs-cli", "prose", "en", "Use --password-stdin instead of -p so the secret doesn't end up in shell history."),
    ("neg-docs-cli", "flag", "en", "pg_dump -h «host» -U «user» -W «db» > out.sql   # -W forces a prompt"),
    ("neg-url-no-password", "url", "en", "https://«user»@bitbucket.org/acme/«app».git"),
    ("neg-url-no-password", "url", "en", "redis://«host»:6379/0"),
    ("neg-http-no-secret", "http", "en", "POST /oauth/token HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=client_credentials&client_id=«P_clientid»&client_secret=«P_bref»"),
    ("neg-sql-no-secret", "sql", "en", "ALTER USER «user» PASSWORD NULL;\nREVOKE ALL ON DATABASE «db» FROM «user»;"),
    ("neg-sql-no-secret", "sql", "en", "CREATE USER «user» WITH PASSWORD :'db_password';"),
    ("neg-chat-no-secret", "chat", "en", "<«nick»> rotated the «env» just now\n<«nick2»> 👍 new one is in the secrets manager («P_arn»)"),
    ("neg-commit-no-secret", "commit", "en", "chore: rotate leaked token (old one revoked, see incident «P_uuid»)"),
    ("neg-k8s-secretref", "yaml", "en", "envFrom:\n  - secretRef:\n      name: «app»-env\n  - configMapRef:\n      name: «app»-config"),
    ("neg-vault-path", "flag", "en", "vault kv get -field=password «P_vault»"),
    ("neg-vault-path", "flag", "en", "gcloud kms decrypt --key «P_kms» --ciphertext-file=secret.enc --plaintext-file=-"),
    ("neg-docs-example-key", "prose", "en", "AWS documentation uses «P_awsex» as the example access key id; scanners should ignore it."),
    ("neg-ui-strings", "xml", "en", "<input type=\"password\" name=\"password\" placeholder=\"Password\" autocomplete=\"current-password\"/>"),
    ("neg-object-ids", "json", "en", "{\"object\": \"charge\", \"id\": \"«P_cus»\", \"customer\": \"«P_cus»\", \"amount\": «n»00}"),
    ("neg-misc-hex", "log", "en", "eth0: link up, hwaddr «P_mac», traceparent 00-«P_trace»-«P_sha7»0a1b2c3d-01"),
    ("neg-object-ids", "log", "en", "GitHub Actions run «P_ghrun» finished, artifact «app»-«P_semver».zip uploaded"),
]

VENDOR_T += [
    ("prose", "ko", "«label_ko» 만료돼서 새로 받았습니다. «V» 로 바꿔 주세요."),
    ("chat", "ko", "<«nick»> «app» 에 넣을 «env» 여기요: «V»\n<«nick2»> 넵"),
    ("commit", "ko", "«app»: «env» 업데이트 («V»)"),
    ("dotenv", "ko", "# «app» 로컬 실행용 - 커밋하지 마세요\n«env»=«V»"),
    ("json", "ko", "{\"설명\": \"«label_ko»\", \"value\": \"«V»\"}"),
    ("prose", "ko", "회의록: «label_ko_eun» 당분간 «V» 를 그대로 쓰기로 함. 담당 «nick»"),
    ("log", "en", "time=«date»T«hh»:00Z level=debug component=«app» msg=\"using credential\" «envl»=\"«V»\""),
    ("code", "en", "# Dockerfile\nENV «env»=«V»\nRUN ./configure --with-auth"),
]

STRUCT_T.update({
    "mixed-config-file": [
        ("yaml", "en", "app:\n  name: «app»\n  secret_key: \"«tok»\"\ndatabase:\n  user: «user»\n  password: «ref»\nmail:\n  password: \"«pw»\""),
        ("toml", "en", "[db]\nuser = \"«user»\"\npassword = \"«pw»\"\n\n[github]\ntoken = \"«ref2»\"\n\n[webhook]\nsecret = \"«hex»\""),
    ],
    "ko-en-mixed-note": [
        ("prose", "ko", "장애 회고 - mysql root password 를 «pws» 로 임시 변경, 원복은 내일. token 관련 설정은 «ref2» 그대로 유지."),
        ("commit", "ko", "hotfix: 결제 webhook secret 교체\n\nWEBHOOK_SECRET=«hex» (기존 값은 폐기)"),
    ],
    "stacktrace-credential": [
        ("log", "en", "kombu.exceptions.OperationalError: cannot connect to amqp://«user»:«pwu»@«host»:5672//\n  File \"/usr/lib/python3/site-packages/kombu/connection.py\", line 446, in _reraise_as_library_errors"),
        ("log", "en", "panic: dial failed for redis://:«pwu»@«host»:6379/0\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/cmd/«app»/main.go:57 +0x1d4"),
    ],
})

NEG_T += [
    ("neg-ko-prose", "prose", "ko", "신규 입사자는 첫 로그인 시 임시 비밀번호를 반드시 변경해야 합니다."),
    ("neg-ko-prose", "prose", "ko", "API 키가 노출된 것 같아서 방금 폐기하고 재발급 요청했습니다. 새 키는 금고에 있습니다."),
    ("neg-ko-prose", "chat", "ko", "<«nick»> 토큰 어디서 받아요?\n<«nick2»> 콘솔 > 설정 > API 토큰 메뉴에서 발급하시면 돼요"),
    ("neg-env-ref", "prose", "ko", "환경 변수 «P_bref» 가 비어 있으면 «app» 이 기동되지 않습니다."),
    ("neg-template-ref", "yaml", "ko", "# 비밀번호는 sealed-secret 으로 관리\npassword: «P_helm»"),
    ("neg-placeholder", "flag", "ko", "설정 예시: «app» login --token «P_ph» (실제 토큰으로 교체하세요)"),
    ("neg-hash", "shell", "en", "«P_sha256» *«app»-«P_semver».iso"),
    ("neg-hash", "http", "en", "HTTP/1.1 304 Not Modified\nETag: \"«P_md5»\"\nCache-Control: max-age=600"),
    ("neg-uuid", "prose", "en", "Correlation id «P_uuid» - please include it in the support ticket."),
    ("neg-git-sha", "commit", "en", "Cherry-picked «P_sha» onto release/«P_semver»"),
    ("neg-public-id", "log", "en", "Message «P_sm» delivered via account «P_ac»"),
    ("neg-public-id", "dotenv", "en", "NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY=«P_sbpub»\nSUPABASE_SECRET_KEY=«P_bref»"),
    ("neg-pubkey", "shell", "en", "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 «P_fp» «user»@«dom» (ED25519)"),
    ("neg-b64-data", "markdown", "en", "![diagram](data:image/png;base64,«P_png»)"),
    ("neg-long-word", "commit", "en", "refactor: rename «P_word» to «P_word»Impl"),
    ("neg-password-policy", "code", "en", "AUTH_PASSWORD_VALIDATORS = [{'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator', 'OPTIONS': {'min_length': «n»}}]"),
    ("neg-secretish-key", "yaml", "en", "keyring_backend: file\npassword_store: pass\nsecret_store_path: «P_secfile»"),
    ("neg-secretish-key", "json", "en", "{\"hasPassword\": true, \"tokenCount\": «n», \"secretVersion\": 3}"),
    ("neg-docs-cli", "flag", "en", "docker run -p 127.0.0.1:«port»:«port» redis:7"),
    ("neg-docs-cli", "flag", "en", "mysql -u «user» -p «db»   # «db» is the database name; a bare -p makes mysql prompt"),
    ("neg-docs-cli", "flag", "en", "ssh-keygen -t ed25519 -C «user»@«dom» -f ~/.ssh/id_ed25519"),
    ("neg-url-no-password", "flag", "en", "mongosh \"mongodb+srv://cluster0.ab1cd.mongodb.net/«db»\" --username «user»"),
    ("neg-url-no-password", "url", "en", "ftp://anonymous@ftp.«dom»/pub/"),
    ("neg-http-no-secret", "http", "en", "GET /api/v1/users?page=«n» HTTP/1.1\nHost: «dom»\nCookie: theme=dark; lang=ko"),
    ("neg-sql-no-secret", "sql", "en", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO «user»;"),
    ("neg-log-masked", "log", "en", "«date» «hh» WARN  DSN postgres://«user»:«P_red»@«host»/«db» unreachable"),
    ("neg-commit-no-secret", "commit", "en", "revert: drop password from log output («P_sha7»)"),
    ("neg-k8s-secretref", "yaml", "en", "volumes:\n  - name: creds\n    secret:\n      secretName: «app»-creds"),
    ("neg-markdown", "markdown", "en", "## Configuration\n\n| key | default |\n|---|---|\n| `password_min_length` | «n» |\n| `token_header` | `Authorization` |"),
    ("neg-vault-path", "flag", "en", "aws secretsmanager get-secret-value --secret-id «P_arn» --query SecretString"),
    ("neg-object-ids", "prose", "en", "Opened PR #«n»; run «P_ghrun» pushed image «P_digest»"),
    ("neg-redacted", "prose", "ko", "토큰 값은 보안상 «P_red» 처리했습니다."),
]

_B_EXTRA_STRUCT = {
    "toml-password": ("toml", "ko", "# 로컬 테스트용 설정\n[database]\nhost = \"«host»\"\npassword = \"«pw»\""),
    "pypirc": ("ini", "en", "[distutils]\nindex-servers =\n    pypi\n    private\n\n[private]\nrepository = https://«dom»/simple/\nusername = «user»\npassword = «pws»"),
    "pip-conf-index": ("ini", "ko", "# pip.conf - 사내 미러\n[global]\nindex-url = https://«user»:«pws»@mirror.«dom»/pypi/simple\ntrusted-host = mirror.«dom»"),
    "kubeconfig-token": ("kubeconfig", "ko", "# 임시 관리자 컨텍스트\nusers:\n- name: temp-admin\n  user:\n    token: «jwt»"),
    "java-properties": ("ini", "en", "quarkus.datasource.username=«user»\nquarkus.datasource.password=«pw»\nquarkus.datasource.jdbc.url=jdbc:postgresql://«host»/«db»"),
    "spring-yaml": ("yaml", "en", "spring:\n  cloud:\n    config:\n      server:\n        git:\n          uri: https://git.«dom»/config-repo\n          username: «user»\n          password: «pws»"),
    "helm-values": ("yaml", "ko", "# 운영 values\nmongodb:\n  auth:\n    rootPassword: \"«pw»\""),
    "gha-workflow": ("yaml", "en", "      - name: Deploy\n        run: curl -fsS -X POST -H \"Authorization: token «tok»\" https://api.«dom»/deploy"),
    "compose-env": ("yaml", "ko", "# 로컬 개발용 compose\nservices:\n  mongo:\n    environment:\n      MONGO_INITDB_ROOT_USERNAME: root\n      MONGO_INITDB_ROOT_PASSWORD: «pws»"),
    "systemd-env": ("systemd", "en", "# override.conf\n[Service]\nEnvironment=\"GF_SECURITY_ADMIN_PASSWORD=«pws»\""),
    "crontab-cred": ("shell", "ko", "# 매일 새벽 백업\n0 4 * * * mongodump --uri=\"mongodb://«user»:«pws»@«host»:27017\" --out /backup"),
    "makefile-cred": ("makefile", "ko", "# 배포용 (로컬에서만 사용)\nNPM_TOKEN=«tok»\npublish:\n\tnpm publish --//registry.npmjs.org/:_authToken=$(NPM_TOKEN)"),
    "xml-password": ("xml", "ko", "<!-- 운영 DB 설정 -->\n<db>\n  <user>«user»</user>\n  <pass>«pwx»</pass>\n</db>"),
    "flag-mysql": ("flag", "en", "docker exec -it db mysql -uroot -p«pws» -e \"CREATE DATABASE «db»\""),
    "flag-pgpassword": ("flag", "ko", "# 복구 명령\nPGPASSWORD=«pws» psql -h «host» -U «user» -f restore.sql"),
    "flag-sshpass": ("flag", "ko", "# 점프 서버 경유\nsshpass -p '«pw»' ssh -J «user»@bastion.«dom» «user»@«host»"),
    "flag-redis-cli": ("flag", "en", "kubectl exec -it redis-0 -- redis-cli -a '«pw»' CONFIG GET maxmemory"),
    "redis-requirepass": ("ini", "ko", "# redis.conf 변경 사항\nrequirepass «pws»\nprotected-mode yes"),
    "flag-curl-user": ("flag", "ko", "# 젠킨스 빌드 트리거\ncurl -X POST -u «user»:«tok» https://jenkins.«dom»/job/«app»/build"),
    "flag-curl-bearer": ("flag", "en", "wget --header=\"Authorization: Bearer «tok»\" https://«dom»/exports/latest.csv"),
    "flag-token-generic": ("flag", "ko", "# CI 에서 실행\n«app» publish --auth-token «tok» --yes"),
    "url-http-userinfo": ("url", "en", "[remote \"origin\"]\n\turl = https://«user»:«tok»@gitlab.«dom»/group/«app».git"),
    "url-pct-userinfo": ("url", "ko", "접속 문자열: mongodb://«user»:«pwe»@«host»:27017/?authSource=admin"),
    "jdbc-url-param": ("url", "ko", "# 운영 DB\njdbc:postgresql://«host»:5432/«db»?user=«user»&password=«pws»&ssl=true"),
    "ado-connstring": ("code", "ko", "// 임시 연결 문자열\nconst string Conn = \"Server=«host»;Database=«db»;Uid=«user»;Pwd=«pw»;\";"),
    "sql-create-user": ("sql", "ko", "-- 리포팅 계정 생성\nCREATE LOGIN «user» WITH PASSWORD = '«pw»';"),
    "http-basic-header": ("log", "en", "«date» «hh» proxy: forwarded headers {'Host': '«dom»', 'Authorization': 'Basic «b64up»'}"),
    "http-apikey-header": ("http", "ko", "# 외부 API 호출 예시\nGET /v3/quotes HTTP/1.1\nHost: api.«dom»\napikey: «tok»"),
    "prose-en-temp-creds": ("prose", "en", "Until LDAP is back, log in as «user» with password «pw»; I'll rotate it afterwards."),
    "prose-ko-token": ("chat", "ko", "<«nick»> 배포 토큰 좀요\n<«nick2»> «tok» 쓰세요, 오늘까지만 유효해요"),
    "chat-password": ("chat", "en", "«nick» 14:02\nthe new vault unseal pass is «pw»\n«nick2» 14:03\nok noted"),
    "commit-password": ("commit", "en", "WIP: local testing\n\ndocker-compose now sets MYSQL_ROOT_PASSWORD=«pws»"),
    "log-leaked-credential": ("log", "ko", "[오류] 로그인 실패 - 사용자 «user», 입력 비밀번호 «pws»"),
    "markdown-creds-table": ("markdown", "en", "- Jenkins: `«user»` / `«pw»`\n- Nexus: SSO\n- Sonar: token in vault"),
    "ldap-bind": ("yaml", "ko", "# 사내 LDAP 연동\nldap:\n  manager-dn: cn=«user»,dc=corp,dc=local\n  manager-password: «pws»"),
    "ansible-inventory": ("yaml", "en", "# group_vars/windows.yml\nansible_user: «user»\nansible_password: \"«pw»\"\nansible_connection: winrm"),
    "wifi-psk": ("ini", "en", "# hostapd.conf\ninterface=wlan0\nssid=Lab-IoT\nwpa_passphrase=«pws»"),
    "powershell-securestring": ("code", "ko", "# 배포 스크립트 (임시)\n$cred = New-Object System.Management.Automation.PSCredential('«user»', (ConvertTo-SecureString '«pw»' -AsPlainText -Force))"),
    "net-use-windows": ("shell", "ko", "# 공유 폴더 연결\nnet use \\\\nas01\\공유 «pws» /user:«user»"),
    "k8s-secret-stringdata": ("yaml", "en", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: es\nstringData:\n  elastic: «pws»\n  kibana_token: «tok»"),
    "gcp-service-account": ("json", "ko", "// 서비스 계정 키 (커밋 금지)\n{\"type\": \"service_account\", \"private_key\": \"«BLOCKJ»\\n\", \"client_email\": \"«P_email»\", \"client_id\": \"«P_cid»\"}"),
    "kubeconfig-client-key": ("kubeconfig", "ko", "# 클러스터 관리자 인증 정보\nusers:\n- name: kubernetes-admin\n  user:\n    client-key-data: «S_ckd»"),
    "mixed-config-file": ("dotenv", "ko", "# 결제 서비스 환경 변수\nPG_PASSWORD=«pws»\nTOSS_SECRET_KEY=«tok»\nSENTRY_DSN=«ref»"),
    "ko-en-mixed-note": ("chat", "ko", "[«hh»] «nick»: staging admin 계정 password 가 «pw» 맞나요?\n[«hh»] «nick2»: 네 맞아요"),
    "stacktrace-credential": ("log", "en", "Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user \"«user»\"\n  (connection url: postgresql://«user»:«pwu»@«host»:5432/«db»)"),
}
for _key, _tpl in _B_EXTRA_STRUCT.items():
    STRUCT_T[_key].append(_tpl)

_B_EXTRA_PAIR = {
    "aws-sts-credentials": ("json", "ko", "// 임시 자격 증명 (1시간)\n{\"AccessKeyId\": \"«S_id»\", \"SecretAccessKey\": \"«S_sec»\", \"SessionToken\": \"«S_tok»\"}"),
    "google-oauth-client": ("dotenv", "ko", "# 구글 OAuth\nOAUTH_GOOGLE_ID=«P_id»\nOAUTH_GOOGLE_SECRET=«S_sec»"),
    "azure-service-principal": ("chat", "en", "<«nick»> sp creds: client «P_id» tenant «P_ten» secret «S_sec»"),
    "algolia-admin": ("dotenv", "en", "NEXT_PUBLIC_ALGOLIA_APP_ID=«P_id»\nALGOLIA_WRITE_API_KEY=«S_sec»"),
    "alibaba-keypair": ("prose", "ko", "알리바바 클라우드 AccessKey ID «S_id» / Secret «S_sec» (OSS 업로드 전용)"),
    "tencent-keypair": ("prose", "en", "Tencent COS creds - SecretId: «S_id», SecretKey: «S_sec»"),
    "razorpay-keypair": ("dotenv", "ko", "# 결제 연동\nRAZORPAY_ID=«P_id»\nRAZORPAY_SECRET=«S_sec»"),
    "pusher-app": ("dotenv", "ko", "# 실시간 알림\nPUSHER_APP_ID=«P_id»\nPUSHER_APP_KEY=«P_key»\nPUSHER_APP_SECRET=«S_sec»"),
    "cloudinary-url": ("prose", "en", "Media uploads use cloudinary://«P_id»:«S_sec»@«cloud» for now."),
    "mongodb-atlas-apikey": ("prose", "ko", "Atlas API 키 - public «P_id», private «S_sec»"),
}
for _key, _tpl in _B_EXTRA_PAIR.items():
    PAIR_T[_key].append(_tpl)
