"""Positive credential families and their value generators."""
import values as V
from values import rs, ALNUM, HEX, DIG, UP, LO, B64URL


class Tok:
    """A fill value. secrets/public are substrings of text."""
    def __init__(self, text, secrets=None, public=None):
        self.text = text
        self.secrets = [text] if secrets is None else secrets
        self.public = public or []

    def __str__(self):
        return self.text


def Pub(text):
    return Tok(text, secrets=[], public=[text])


FAMS = []


def tok(name, vendor, env, key, gen, style="T", host=None, prefix=None, ko=None, ex=None, issue=True):
    FAMS.append(dict(kind="tok", name=name, vendor=vendor, env=env, key=key, gen=gen, style=style,
                     host=host or f"api.{vendor.lower().replace(' ', '')}.com", prefix=prefix,
                     ko=ko or vendor, ex=ex or {}, issue=issue))


def pair(name, vendor, idenv, env, idkey, key, gen, id_secret=True, host=None, cli="", ex=None, issue=True, basic=False):
    FAMS.append(dict(kind="pair", name=name, vendor=vendor, idenv=idenv, env=env, idkey=idkey, key=key, gen=gen,
                     id_secret=id_secret, host=host or f"api.{vendor.lower().replace(' ', '')}.com", cli=cli,
                     ex=ex or {}, issue=issue, basic=basic, style="P"))


def custom(name, gen, A, B, issue=True):
    FAMS.append(dict(kind="custom", name=name, gen=gen, A=A, B=B, issue=issue))


def url_secret(url, secret):
    return Tok(url, secrets=[secret])


# ---------------------------------------------------------------- cloud
pair("aws-access-key", "AWS", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "aws_access_key_id", "aws_secret_access_key",
     lambda r: (V.aws_key_id(r), V.aws_secret(r)), host="sts.amazonaws.com", cli="aws sts get-caller-identity")
tok("gcp-api-key", "Google Maps", "GOOGLE_MAPS_API_KEY", "maps_api_key", V.gcp_api_key, style="K", host="maps.googleapis.com", prefix="AIza",
    ex={"A": [("url", "en", "https://maps.googleapis.com/maps/api/geocode/json?address=Gangnam&key=<<V>>")],
        "B": [("code", "en", "gmaps = googlemaps.Client(key=\"<<V>>\")\nresult = gmaps.geocode(\"Seoul Station\")")]})
tok("gcp-oauth-access-token", "Google OAuth", "GOOGLE_ACCESS_TOKEN", "access_token", V.ya29, host="www.googleapis.com", prefix="ya29.",
    ex={"A": [("shell", "en", "curl -H \"Authorization: Bearer <<V>>\" https://storage.googleapis.com/storage/v1/b/acme-artifacts/o")],
        "B": [("json", "en", "{\n  \"access_token\": \"<<V>>\",\n  \"expires_in\": 3599,\n  \"scope\": \"https://www.googleapis.com/auth/cloud-platform\",\n  \"token_type\": \"Bearer\"\n}")]})
tok("gcp-oauth-refresh-token", "Google OAuth", "GOOGLE_REFRESH_TOKEN", "refresh_token", V.google_refresh, style="K", host="oauth2.googleapis.com", prefix="1//0",
    ex={"A": [("json", "en", "{\"type\": \"authorized_user\", \"client_id\": \"<<NUM>>-abc.apps.googleusercontent.com\", \"refresh_token\": \"<<V>>\"}")],
        "B": [("shell", "en", "curl -s https://oauth2.googleapis.com/token -d grant_type=refresh_token -d refresh_token=<<V>> -d client_id=$CLIENT_ID")]})
pair("gcp-oauth-client-secret", "Google OAuth", "GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET", "client_id", "client_secret",
     lambda r: (f"{rs(r, DIG, 12)}-{rs(r, LO + DIG, 32)}.apps.googleusercontent.com", V.gocspx(r)), id_secret=False, host="oauth2.googleapis.com")
tok("firebase-fcm-server-key", "Firebase", "FCM_SERVER_KEY", "server_key", V.fcm_key, style="K", host="fcm.googleapis.com", prefix="AAAA",
    ex={"A": [("shell", "en", "curl -X POST https://fcm.googleapis.com/fcm/send -H \"Authorization: key=<<V>>\" -H 'Content-Type: application/json' -d @push.json")],
        "B": [("code", "en", "const headers = {\n  'Content-Type': 'application/json',\n  Authorization: 'key=<<V>>',\n};")]})
tok("azure-storage-connection-string", "Azure Storage", "AZURE_STORAGE_CONNECTION_STRING", "connection_string",
    lambda r: (lambda acct, k: Tok(f"DefaultEndpointsProtocol=https;AccountName={acct};AccountKey={k};EndpointSuffix=core.windows.net", secrets=[k]))(
        "st" + rs(r, LO + DIG, 10), V.azure_storage_key(r)), style="K", host="blob.core.windows.net")
tok("azure-sas-token", "Azure Blob SAS", "AZURE_SAS_URL", "sas_url",
    lambda r: (lambda sig: Tok(f"https://st{rs(r, LO, 8)}.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T23:59:59Z&st=2026-11-01T00:00:00Z&spr=https&sig={sig}", secrets=[sig]))(V.azure_sas_sig(r)),
    style="U", host="blob.core.windows.net")
tok("azure-devops-pat", "Azure DevOps", "AZURE_DEVOPS_EXT_PAT", "pat", V.azdo_pat, host="dev.azure.com",
    ex={"A": [("prose", "en", "The pipeline agent registered fine once I used the PAT <<V>> from the ops account; it expires in 30 days.")],
        "B": [("shell", "en", "git clone https://build:<<V>>@dev.azure.com/contoso/Platform/_git/infra")]})
pair("azure-client-secret", "Azure AD", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "client_id", "client_secret",
     lambda r: (V.uuid4(r), V.azure_client_secret(r)), id_secret=False, host="login.microsoftonline.com",
     cli="az login --service-principal -u $AZURE_CLIENT_ID -p $AZURE_CLIENT_SECRET --tenant contoso.onmicrosoft.com")
tok("digitalocean-pat", "DigitalOcean", "DIGITALOCEAN_TOKEN", "do_token", lambda r: V.do_token(r, "dop"), host="api.digitalocean.com", prefix="dop_v1_",
    ex={"A": [("flag", "en", "doctl auth init --access-token <<V>> --context staging")]})
tok("digitalocean-oauth-token", "DigitalOcean", "DIGITALOCEAN_ACCESS_TOKEN", "oauth_token", lambda r: V.do_token(r, "doo"), host="api.digitalocean.com", prefix="doo_v1_")
pair("alibaba-access-key", "Alibaba Cloud", "ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "access_key_id", "access_key_secret",
     lambda r: (V.alibaba_id(r), rs(r, ALNUM, 30)), host="ecs.aliyuncs.com", cli="aliyun ecs DescribeRegions")
tok("ibm-cloud-api-key", "IBM Cloud", "IBMCLOUD_API_KEY", "apikey", V.ibm_key, style="K", host="iam.cloud.ibm.com",
    ex={"A": [("flag", "en", "ibmcloud login --apikey <<V>> -r us-south -g default")],
        "B": [("json", "en", "{\n  \"name\": \"ci-deployer\",\n  \"description\": \"used by tekton\",\n  \"createdAt\": \"2026-10-02T11:20+0000\",\n  \"apikey\": \"<<V>>\"\n}")]})
tok("oracle-oci-auth-token", "Oracle OCI", "OCI_AUTH_TOKEN", "auth_token", V.oci_auth_token, style="K", host="objectstorage.us-ashburn-1.oraclecloud.com",
    ex={"A": [("flag", "en", "docker login iad.ocir.io -u 'idtenancy/oracleidentitycloudservice/ops@example.com' -p '<<V>>'")],
        "B": [("prose", "en", "OCIR wants the auth token, not your console password. Mine is <<V>> if you need to test quickly.")]})

# ---------------------------------------------------------------- VCS
tok("github-pat-classic", "GitHub", "GITHUB_TOKEN", "github_token", lambda r: V.gh(r, "ghp"), host="api.github.com", prefix="ghp_",
    ex={"A": [("shell", "en", "git clone https://<<V>>@github.com/acme/infra-modules.git")],
        "B": [("shell", "en", "echo <<V>> | gh auth login --with-token")]})
tok("github-fine-grained-pat", "GitHub", "GH_TOKEN", "token", V.gh_fine, host="api.github.com", prefix="github_pat_")
tok("github-oauth-token", "GitHub OAuth", "GITHUB_OAUTH_TOKEN", "oauth_token", lambda r: V.gh(r, "gho"), host="api.github.com", prefix="gho_")
tok("github-app-token", "GitHub App", "GITHUB_APP_INSTALLATION_TOKEN", "installation_token", lambda r: V.gh(r, "ghs"), host="api.github.com", prefix="ghs_")
tok("github-user-to-server-token", "GitHub App", "GITHUB_USER_TOKEN", "user_token", lambda r: V.gh(r, "ghu"), host="api.github.com", prefix="ghu_")
tok("gitlab-pat", "GitLab", "GITLAB_TOKEN", "private_token", V.glpat, host="gitlab.com", prefix="glpat-",
    ex={"A": [("shell", "en", "curl --header \"PRIVATE-TOKEN: <<V>>\" \"https://gitlab.com/api/v4/projects/4242/pipelines?status=failed\"")],
        "B": [("shell", "en", "git remote set-url origin https://oauth2:<<V>>@gitlab.com/acme/payments.git")]})
tok("gitlab-pipeline-trigger-token", "GitLab", "GITLAB_TRIGGER_TOKEN", "trigger_token", lambda r: "glptt-" + rs(r, HEX, 40), style="K", host="gitlab.com", prefix="glptt-",
    ex={"A": [("shell", "en", "curl -X POST --fail -F token=<<V>> -F ref=main https://gitlab.com/api/v4/projects/981/trigger/pipeline")]})
tok("gitlab-runner-token", "GitLab Runner", "RUNNER_TOKEN", "token", lambda r: "glrt-" + rs(r, B64URL, 20), style="K", host="gitlab.com", prefix="glrt-",
    ex={"B": [("toml", "en", "[[runners]]\n  name = \"docker-runner-02\"\n  url = \"https://gitlab.com/\"\n  token = \"<<V>>\"\n  executor = \"docker\"")]})
tok("gitlab-deploy-token", "GitLab", "CI_DEPLOY_PASSWORD", "deploy_token", lambda r: "gldt-" + rs(r, B64URL, 20), style="K", host="gitlab.com", prefix="gldt-")
pair("bitbucket-app-password", "Bitbucket", "BITBUCKET_USERNAME", "BITBUCKET_APP_PASSWORD", "username", "app_password",
     lambda r: (r.choice(["jkim", "deploy-bot", "mlee", "svc-ci"]), V.bitbucket_app_pw(r)), id_secret=False, host="api.bitbucket.org", basic=True)

# ---------------------------------------------------------------- CI/CD
tok("circleci-token", "CircleCI", "CIRCLECI_TOKEN", "circle_token", lambda r: "CCIPAT_" + rs(r, ALNUM, 22) + "_" + rs(r, HEX, 40), host="circleci.com", prefix="CCIPAT_",
    ex={"A": [("shell", "en", "curl -H \"Circle-Token: <<V>>\" https://circleci.com/api/v2/me")]})
tok("jenkins-api-token", "Jenkins", "JENKINS_API_TOKEN", "api_token", lambda r: "11" + rs(r, HEX, 32), style="K", host="jenkins.internal.example.net", issue=False,
    ex={"A": [("shell", "en", "curl -X POST -u admin:<<V>> https://jenkins.internal.example.net/job/nightly/build")],
        "B": [("shell", "en", "java -jar jenkins-cli.jar -s https://ci.corp.example.org/ -auth ops:<<V>> list-jobs")]})
tok("buildkite-token", "Buildkite", "BUILDKITE_API_TOKEN", "api_token", lambda r: "bkua_" + rs(r, HEX, 40), host="api.buildkite.com", prefix="bkua_", issue=False)
tok("terraform-cloud-token", "Terraform Cloud", "TFE_TOKEN", "token",
    lambda r: rs(r, ALNUM, 14) + ".atlasv1." + rs(r, ALNUM, 67), host="app.terraform.io", issue=False,
    ex={"A": [("hcl", "en", "credentials \"app.terraform.io\" {\n  token = \"<<V>>\"\n}")]})

# ---------------------------------------------------------------- chat
tok("slack-bot-token", "Slack", "SLACK_BOT_TOKEN", "bot_token", lambda r: V.slack(r, "xoxb"), host="slack.com", prefix="xoxb-")
tok("slack-user-token", "Slack", "SLACK_USER_TOKEN", "user_token", lambda r: V.slack(r, "xoxp"), host="slack.com", prefix="xoxp-")
tok("slack-app-token", "Slack", "SLACK_APP_TOKEN", "app_token", lambda r: V.slack(r, "xapp"), host="slack.com", prefix="xapp-")
tok("slack-webhook", "Slack webhook", "SLACK_WEBHOOK_URL", "webhook_url",
    lambda r: (lambda p: url_secret("https://hooks.slack.com/services/" + p, p))(V.slack_webhook_path(r)), style="U", host="hooks.slack.com",
    ex={"A": [("shell", "en", "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy finished\"}' <<V>>")]})
tok("discord-bot-token", "Discord", "DISCORD_TOKEN", "bot_token", V.discord_bot, host="discord.com",
    ex={"A": [("code", "en", "client.run('<<V>>')")], "B": [("shell", "en", "curl -H \"Authorization: Bot <<V>>\" https://discord.com/api/v10/users/@me")]})
tok("discord-webhook", "Discord webhook", "DISCORD_WEBHOOK_URL", "webhook_url",
    lambda r: (lambda i, t: url_secret(f"https://discord.com/api/webhooks/{i}/{t}", t))(*V.discord_webhook(r)), style="U", host="discord.com")
tok("telegram-bot-token", "Telegram", "TELEGRAM_BOT_TOKEN", "bot_token", V.telegram, style="K", host="api.telegram.org",
    ex={"A": [("url", "en", "curl https://api.telegram.org/bot<<V>>/sendMessage -d chat_id=-100123456 -d text=ok")]})
tok("teams-webhook", "Teams webhook", "TEAMS_WEBHOOK_URL", "webhook_url",
    lambda r: (lambda a, b, c, d: url_secret(f"https://contoso.webhook.office.com/webhookb2/{a}@{b}/IncomingWebhook/{c}/{d}", f"{a}@{b}/IncomingWebhook/{c}/{d}"))(
        V.uuid4(r), V.uuid4(r), rs(r, HEX, 32), V.uuid4(r)), style="U", host="contoso.webhook.office.com")

# ---------------------------------------------------------------- payments
tok("stripe-secret-key", "Stripe", "STRIPE_SECRET_KEY", "secret_key", lambda r: V.stripe(r, "sk_live_"), host="api.stripe.com", prefix="sk_live_",
    ex={"A": [("shell", "en", "curl https://api.stripe.com/v1/charges -u <<V>>: -d amount=2000 -d currency=krw")]})
tok("stripe-restricted-key", "Stripe", "STRIPE_RESTRICTED_KEY", "restricted_key", lambda r: V.stripe(r, "rk_live_"), host="api.stripe.com", prefix="rk_live_")
tok("stripe-webhook-secret", "Stripe webhook", "STRIPE_WEBHOOK_SECRET", "webhook_secret", lambda r: "whsec_" + rs(r, ALNUM, 32), style="K", host="api.stripe.com", prefix="whsec_")
tok("square-access-token", "Square", "SQUARE_ACCESS_TOKEN", "access_token", V.square_token, host="connect.squareup.com", prefix="EAAA")
tok("square-oauth-secret", "Square", "SQUARE_APPLICATION_SECRET", "application_secret", lambda r: "sq0csp-" + rs(r, B64URL, 43), style="K", host="connect.squareup.com", prefix="sq0csp-")
tok("braintree-access-token", "Braintree", "BRAINTREE_ACCESS_TOKEN", "access_token", V.braintree_token, style="K", host="api.braintreegateway.com", prefix="access_token$production$")
pair("braintree-private-key", "Braintree", "BRAINTREE_PUBLIC_KEY", "BRAINTREE_PRIVATE_KEY", "public_key", "private_key",
     lambda r: (rs(r, LO + DIG, 16), rs(r, HEX, 32)), id_secret=False, host="api.braintreegateway.com")
tok("paypal-client-secret", "PayPal", "PAYPAL_CLIENT_SECRET", "client_secret", lambda r: "E" + rs(r, B64URL, 79), style="K", host="api-m.paypal.com")
tok("adyen-api-key", "Adyen", "ADYEN_API_KEY", "api_key", V.adyen_key, host="checkout-live.adyen.com", prefix="AQE",
    ex={"A": [("shell", "en", "curl https://checkout-test.adyen.com/v71/paymentMethods -H \"X-API-Key: <<V>>\" -H 'Content-Type: application/json' -d '{\"merchantAccount\":\"AcmeKR\"}'")]})

# ---------------------------------------------------------------- comms
pair("twilio-account-auth-token", "Twilio", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "account_sid", "auth_token",
     lambda r: ("AC" + rs(r, HEX, 32), rs(r, HEX, 32)), id_secret=False, host="api.twilio.com", basic=True,
     ex={"A": [("flag", "en", "curl -X POST https://api.twilio.com/2010-04-01/Accounts/<<ID>>/Messages.json -u <<ID>>:<<V>> --data-urlencode 'To=+821012345678' --data-urlencode 'Body=test'")],
         "B": [("code", "en", "client = twilio.rest.Client(\"<<ID>>\", \"<<V>>\")\nclient.messages.create(to=\"+821012345678\", from_=\"+15005550006\", body=\"hi\")")]})
pair("twilio-api-key", "Twilio", "TWILIO_API_KEY", "TWILIO_API_SECRET", "api_key_sid", "secret",
     lambda r: ("SK" + rs(r, HEX, 32), rs(r, ALNUM, 32)), id_secret=False, host="api.twilio.com", basic=True,
     ex={"A": [("prose", "en", "Created a Twilio API key for the notifier: sid <<ID>>, secret <<V>> (shown once, so I copied it here).")],
         "B": [("json", "en", "{\n  \"sid\": \"<<ID>>\",\n  \"friendly_name\": \"notifier-prod\",\n  \"secret\": \"<<V>>\",\n  \"date_created\": \"2026-11-30T01:02:03Z\"\n}")]})
tok("sendgrid-api-key", "SendGrid", "SENDGRID_API_KEY", "api_key", V.sendgrid, host="api.sendgrid.com", prefix="SG.")
tok("mailgun-api-key", "Mailgun", "MAILGUN_API_KEY", "api_key", V.mailgun, style="K", host="api.mailgun.net",
    ex={"A": [("shell", "en", "curl -s --user 'api:<<V>>' https://api.mailgun.net/v3/mg.example.com/messages -F to=ops@example.com -F subject=test")]})
tok("mailchimp-api-key", "Mailchimp", "MAILCHIMP_API_KEY", "api_key", V.mailchimp, style="K", host="us6.api.mailchimp.com")
tok("postmark-server-token", "Postmark", "POSTMARK_SERVER_TOKEN", "server_token", V.uuid4, style="K", host="api.postmarkapp.com",
    ex={"A": [("shell", "en", "curl \"https://api.postmarkapp.com/email\" -X POST -H \"Accept: application/json\" -H \"X-Postmark-Server-Token: <<V>>\" -d @mail.json")],
        "B": [("code", "en", "var client = new PostmarkClient(\"<<V>>\");")]})

# ---------------------------------------------------------------- AI
tok("openai-api-key", "OpenAI", "OPENAI_API_KEY", "api_key", V.openai, host="api.openai.com", prefix="sk-")
tok("anthropic-api-key", "Anthropic", "ANTHROPIC_API_KEY", "api_key", V.anthropic, host="api.anthropic.com", prefix="sk-ant-",
    ex={"A": [("shell", "en", "curl https://api.anthropic.com/v1/messages -H \"x-api-key: <<V>>\" -H \"anthropic-version: 2023-06-01\" -H 'content-type: application/json' -d @req.json")]})
tok("huggingface-token", "Hugging Face", "HF_TOKEN", "hf_token", lambda r: "hf_" + rs(r, UP + LO, 34), host="huggingface.co", prefix="hf_",
    ex={"A": [("flag", "en", "huggingface-cli login --token <<V>> --add-to-git-credential")]})
tok("cohere-api-key", "Cohere", "COHERE_API_KEY", "api_key", lambda r: rs(r, ALNUM, 40), host="api.cohere.com")
tok("replicate-api-token", "Replicate", "REPLICATE_API_TOKEN", "api_token", lambda r: "r8_" + rs(r, ALNUM, 37), host="api.replicate.com", prefix="r8_")
tok("groq-api-key", "Groq", "GROQ_API_KEY", "api_key", lambda r: "gsk_" + rs(r, ALNUM, 52), host="api.groq.com", prefix="gsk_")
tok("perplexity-api-key", "Perplexity", "PERPLEXITY_API_KEY", "api_key", lambda r: "pplx-" + rs(r, ALNUM, 48), host="api.perplexity.ai", prefix="pplx-", issue=False)
tok("langsmith-api-key", "LangSmith", "LANGSMITH_API_KEY", "api_key", lambda r: "lsv2_pt_" + rs(r, HEX, 32) + "_" + rs(r, HEX, 10), host="api.smith.langchain.com", prefix="lsv2_pt_", issue=False)

# ---------------------------------------------------------------- infra
tok("heroku-api-key", "Heroku", "HEROKU_API_KEY", "api_key", lambda r: "HRKU-" + rs(r, B64URL, 60) if r.random() < 0.6 else V.uuid4(r), host="api.heroku.com",
    ex={"A": [("netrc", "en", "machine api.heroku.com\n  login dev@example.com\n  password <<V>>\nmachine git.heroku.com\n  login dev@example.com\n  password <<V>>")]})
tok("vercel-token", "Vercel", "VERCEL_TOKEN", "token", lambda r: rs(r, ALNUM, 24), host="api.vercel.com",
    ex={"A": [("flag", "en", "vercel deploy --prod --token <<V>> --scope acme")],
        "B": [("yaml", "en", "- name: Deploy\n  run: npx vercel pull --yes --environment=production --token=<<V>>")]})
tok("netlify-token", "Netlify", "NETLIFY_AUTH_TOKEN", "auth_token", lambda r: "nfp_" + rs(r, ALNUM, 36), host="api.netlify.com", prefix="nfp_",
    ex={"A": [("flag", "en", "netlify deploy --prod --dir=dist --auth <<V>>")]})
tok("fly-io-token", "Fly.io", "FLY_API_TOKEN", "api_token",
    lambda r: (lambda a: Tok("FlyV1 " + a, secrets=[a]))("fm2_" + V.b64(V.rbytes(r, 120)) + ",fm2_" + V.b64(V.rbytes(r, 60))), host="api.fly.io")
tok("cloudflare-api-token", "Cloudflare", "CLOUDFLARE_API_TOKEN", "api_token", lambda r: rs(r, B64URL, 40), host="api.cloudflare.com")
pair("cloudflare-global-api-key", "Cloudflare", "CF_API_EMAIL", "CF_API_KEY", "email", "api_key",
     lambda r: (r.choice(["ops", "dns-admin", "jh.park", "infra"]) + "@example.com", rs(r, HEX, 37)), id_secret=False, host="api.cloudflare.com",
     ex={"A": [("shell", "en", "curl https://api.cloudflare.com/client/v4/zones -H \"X-Auth-Email: <<ID>>\" -H \"X-Auth-Key: <<V>>\"")]})
tok("fastly-api-token", "Fastly", "FASTLY_API_TOKEN", "api_token", lambda r: rs(r, B64URL, 32), host="api.fastly.com",
    ex={"A": [("shell", "en", "curl -X POST -H \"Fastly-Key: <<V>>\" https://api.fastly.com/service/SU1Z0isxPaozGVKXdv0eY/purge_all")]})
pair("datadog-keys", "Datadog", "DD_API_KEY", "DD_APP_KEY", "api_key", "app_key",
     lambda r: (rs(r, HEX, 32), rs(r, HEX, 40)), id_secret=True, host="api.datadoghq.com",
     ex={"A": [("shell", "en", "curl -X GET \"https://api.datadoghq.eu/api/v1/validate\" -H \"DD-API-KEY: <<ID>>\" -H \"DD-APPLICATION-KEY: <<V>>\"")]})
tok("newrelic-user-key", "New Relic", "NEW_RELIC_API_KEY", "api_key", lambda r: "NRAK-" + rs(r, UP + DIG, 27), host="api.newrelic.com", prefix="NRAK-")
tok("newrelic-insert-key", "New Relic", "NEW_RELIC_INSERT_KEY", "insert_key", lambda r: "NRII-" + rs(r, B64URL, 32), style="K", host="insights-collector.newrelic.com", prefix="NRII-")
tok("newrelic-license-key", "New Relic", "NEW_RELIC_LICENSE_KEY", "license_key", lambda r: rs(r, HEX, 36) + "NRAL", style="K", host="collector.newrelic.com")
tok("sentry-dsn", "Sentry", "SENTRY_DSN", "dsn",
    lambda r: (lambda k: url_secret(f"https://{k}@o{r.randrange(100000, 4999999)}.ingest.sentry.io/{r.randrange(1000000, 9999999)}", k))(rs(r, HEX, 32)),
    style="U", host="sentry.io")
tok("sentry-auth-token", "Sentry", "SENTRY_AUTH_TOKEN", "auth_token", lambda r: "sntryu_" + rs(r, HEX, 64), host="sentry.io", prefix="sntryu_")
tok("grafana-service-account-token", "Grafana", "GRAFANA_TOKEN", "token", lambda r: "glsa_" + rs(r, ALNUM, 32) + "_" + rs(r, HEX, 8), host="grafana.example.net", prefix="glsa_")
tok("grafana-cloud-token", "Grafana Cloud", "GRAFANA_CLOUD_TOKEN", "cloud_token",
    lambda r: "glc_" + V.b64(('{"o":"%d","n":"stack-%d-hm-write","k":"%s","m":{"r":"prod-eu-west-2"}}' % (r.randrange(10**5, 10**6), r.randrange(10**5, 10**6), rs(r, ALNUM, 24))).encode()),
    host="grafana.net", prefix="glc_")
tok("pagerduty-api-key", "PagerDuty", "PAGERDUTY_TOKEN", "api_key", lambda r: "u+" + rs(r, ALNUM + "_-", 18) if r.random() < 0.5 else rs(r, ALNUM + "+_-", 20), host="api.pagerduty.com",
    ex={"A": [("shell", "en", "curl -H \"Authorization: Token token=<<V>>\" -H 'Accept: application/vnd.pagerduty+json;version=2' https://api.pagerduty.com/incidents")]})
tok("dynatrace-token", "Dynatrace", "DT_API_TOKEN", "api_token", lambda r: "dt0c01." + rs(r, UP + DIG, 24) + "." + rs(r, UP + DIG, 64), host="abc12345.live.dynatrace.com", prefix="dt0c01.", issue=False)
tok("pulumi-access-token", "Pulumi", "PULUMI_ACCESS_TOKEN", "access_token", lambda r: "pul-" + rs(r, HEX, 40), host="api.pulumi.com", prefix="pul-", issue=False)
tok("postman-api-key", "Postman", "POSTMAN_API_KEY", "api_key", lambda r: "PMAK-" + rs(r, HEX, 24) + "-" + rs(r, HEX, 34), host="api.getpostman.com", prefix="PMAK-", issue=False)
tok("databricks-token", "Databricks", "DATABRICKS_TOKEN", "token", lambda r: "dapi" + rs(r, HEX, 32), host="adb-1234567890123456.7.azuredatabricks.net", prefix="dapi", issue=False)
tok("figma-pat", "Figma", "FIGMA_TOKEN", "token", lambda r: "figd_" + rs(r, B64URL, 40), host="api.figma.com", prefix="figd_", issue=False)
tok("supabase-access-token", "Supabase", "SUPABASE_ACCESS_TOKEN", "access_token", lambda r: "sbp_" + rs(r, HEX, 40), host="api.supabase.com", prefix="sbp_", issue=False)
tok("planetscale-password", "PlanetScale", "PLANETSCALE_DB_PASSWORD", "password", lambda r: "pscale_pw_" + rs(r, ALNUM + "_", 43), style="K", host="aws.connect.psdb.cloud", prefix="pscale_pw_", issue=False)
tok("mapbox-secret-token", "Mapbox", "MAPBOX_SECRET_TOKEN", "secret_token",
    lambda r: "sk." + V.b64url(('{"u":"%s","a":"%s"}' % (r.choice(["acme-maps", "jdoe", "geo-team"]), rs(r, B64URL, 25))).encode()) + "." + rs(r, B64URL, 22),
    style="K", host="api.mapbox.com", prefix="sk.eyJ", issue=False)

# ---------------------------------------------------------------- registries
tok("npm-access-token", "npm", "NPM_TOKEN", "npm_token", lambda r: V.checksummed62(r, "npm_"), host="registry.npmjs.org", prefix="npm_")
tok("pypi-upload-token", "PyPI", "PYPI_API_TOKEN", "password", lambda r: "pypi-AgEIcHlwaS5vcmcCJ" + rs(r, B64URL, 160), style="K", host="upload.pypi.org", prefix="pypi-",
    ex={"A": [("ini", "en", "[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\npassword = <<V>>")],
        "B": [("shell", "en", "twine upload dist/* -u __token__ -p <<V>> --non-interactive")]})
tok("rubygems-api-key", "RubyGems", "GEM_HOST_API_KEY", "rubygems_api_key", lambda r: "rubygems_" + rs(r, HEX, 48), style="K", host="rubygems.org", prefix="rubygems_",
    ex={"A": [("yaml", "en", "# ~/.gem/credentials\n---\n:rubygems_api_key: <<V>>")]})
tok("nuget-api-key", "NuGet", "NUGET_API_KEY", "api_key", lambda r: "oy2" + rs(r, LO + DIG, 43), style="K", host="api.nuget.org",
    ex={"A": [("flag", "en", "dotnet nuget push bin/Release/Acme.Core.3.2.0.nupkg --api-key <<V>> --source https://api.nuget.org/v3/index.json")]})
tok("dockerhub-pat", "Docker Hub", "DOCKERHUB_TOKEN", "token", lambda r: "dckr_pat_" + rs(r, B64URL, 27), style="K", host="hub.docker.com", prefix="dckr_pat_",
    ex={"A": [("shell", "en", "echo \"<<V>>\" | docker login -u acmebuild --password-stdin")]})
tok("docker-oat", "Docker org", "DOCKER_ORG_TOKEN", "org_access_token", lambda r: "dckr_oat_" + rs(r, B64URL, 32), style="K", host="hub.docker.com", prefix="dckr_oat_")

# ---------------------------------------------------------------- SaaS
tok("snyk-token", "Snyk", "SNYK_TOKEN", "snyk_token", V.uuid4, style="K", host="api.snyk.io",
    ex={"A": [("flag", "en", "snyk auth <<V>> && snyk test --severity-threshold=high")],
        "B": [("yaml", "en", "- name: Snyk\n  run: snyk monitor --all-projects\n  env:\n    SNYK_TOKEN: <<V>>")]})
tok("shopify-access-token", "Shopify", "SHOPIFY_ACCESS_TOKEN", "access_token", lambda r: "shpat_" + rs(r, HEX, 32), host="acme-shop.myshopify.com", prefix="shpat_",
    ex={"A": [("shell", "en", "curl -H \"X-Shopify-Access-Token: <<V>>\" https://acme-shop.myshopify.com/admin/api/2024-07/products.json")]})
tok("shopify-shared-secret", "Shopify", "SHOPIFY_API_SECRET", "api_secret", lambda r: "shpss_" + rs(r, HEX, 32), style="K", host="acme-shop.myshopify.com", prefix="shpss_")
tok("atlassian-api-token", "Atlassian", "JIRA_API_TOKEN", "api_token", V.atlassian_token, style="K", host="acme.atlassian.net", prefix="ATATT",
    ex={"A": [("shell", "en", "curl -u ops@example.com:<<V>> https://acme.atlassian.net/rest/api/3/myself")]})
tok("linear-api-key", "Linear", "LINEAR_API_KEY", "api_key", lambda r: "lin_api_" + rs(r, ALNUM, 40), host="api.linear.app", prefix="lin_api_")
tok("notion-token", "Notion", "NOTION_TOKEN", "token", lambda r: ("ntn_" + rs(r, DIG, 11) + rs(r, ALNUM, 35)) if r.random() < 0.5 else "secret_" + rs(r, ALNUM, 43), host="api.notion.com")
tok("airtable-pat", "Airtable", "AIRTABLE_TOKEN", "token", lambda r: "pat" + rs(r, ALNUM, 14) + "." + rs(r, HEX, 64), host="api.airtable.com", prefix="pat")
tok("okta-api-token", "Okta", "OKTA_API_TOKEN", "api_token", lambda r: "00" + rs(r, B64URL, 40), host="acme.okta.com",
    ex={"A": [("shell", "en", "curl -H \"Authorization: SSWS <<V>>\" https://acme.okta.com/api/v1/users?limit=25")]})
pair("auth0-client-secret", "Auth0", "AUTH0_CLIENT_ID", "AUTH0_CLIENT_SECRET", "client_id", "client_secret",
     lambda r: (rs(r, ALNUM, 32), rs(r, B64URL, 64)), id_secret=False, host="acme.eu.auth0.com")
tok("vault-token", "Vault", "VAULT_TOKEN", "token", V.vault_token, host="vault.internal.example.net", prefix="hvs.",
    ex={"A": [("shell", "en", "curl -H \"X-Vault-Token: <<V>>\" https://vault.internal.example.net:8200/v1/secret/data/payments")]})
tok("doppler-token", "Doppler", "DOPPLER_TOKEN", "token", V.doppler, host="api.doppler.com", prefix="dp.st.",
    ex={"A": [("flag", "en", "doppler run --token <<V>> -- ./bin/server")]})
tok("onepassword-service-account", "1Password", "OP_SERVICE_ACCOUNT_TOKEN", "service_account_token", V.onepassword_sa, style="K", host="my.1password.com", prefix="ops_")
tok("jwt", "API gateway JWT", "API_JWT", "jwt",
    lambda r: V.jwt(r, alg=r.choice(["HS256", "RS256"])), host="gateway.example.com", prefix="eyJ")
tok("dotenv-generic-secret", "internal API", "API_TOKEN", "api_token", lambda r: V.b64(V.rbytes(r, r.choice([30, 32, 33, 36, 48]))), host="internal.example.net",
    ex={"A": [("shell", "en", "export API_TOKEN=<<V>>")], "B": [("dotenv", "en", "SERVICE_SECRET=<<V>>\nSERVICE_URL=https://internal.example.net")]})
tok("bearer-opaque-token", "partner API", "PARTNER_TOKEN", "access_token", lambda r: rs(r, ALNUM + "-._~+/", r.randrange(36, 64)).lstrip("+/") + "=" * r.randrange(0, 2), host="partner.example.io")

# DB URLs
def _dburl(scheme, port, users, path, ctx="url"):
    def g(r):
        pw = V.quote_safe_pw(r, ctx)
        if r.random() < 0.5:
            pw = pw[:4] + r.choice("#?/@!") + pw[4:]
        host = r.choice(["db-prod-1.internal", "10.20.3.14", "pg.acme-corp.net", "primary.cluster-cx8r.ap-northeast-2.rds.amazonaws.com", "mq.svc.cluster.local"])
        return Tok(f"{scheme}://{r.choice(users)}:{pw}@{host}:{port}{path}", secrets=[pw])
    return g


tok("postgres-url", "Postgres", "DATABASE_URL", "database_url", _dburl("postgresql", 5432, ["app", "billing_rw", "postgres"], "/billing?sslmode=require"), style="U")
tok("mysql-url", "MySQL", "MYSQL_URL", "mysql_url", _dburl("mysql", 3306, ["root", "wp_admin", "orders"], "/orders"), style="U")
tok("mongodb-url", "MongoDB", "MONGODB_URI", "mongo_uri",
    lambda r: (lambda pw: Tok(f"mongodb+srv://{r.choice(['admin', 'api-user', 'etl'])}:{pw}@cluster0.{rs(r, LO + DIG, 5)}.mongodb.net/app?retryWrites=true&w=majority", secrets=[pw]))(V.quote_safe_pw(r, "url")), style="U")
tok("redis-url", "Redis", "REDIS_URL", "redis_url",
    lambda r: (lambda pw: Tok(f"rediss://default:{pw}@redis-{r.randrange(10000, 19999)}.c1.ap-northeast-2-1.ec2.cloud.redislabs.com:{r.randrange(10000, 19999)}/0", secrets=[pw]))(V.quote_safe_pw(r, "url")), style="U")
tok("amqp-url", "RabbitMQ", "AMQP_URL", "amqp_url", _dburl("amqps", 5671, ["guest-ops", "celery", "events"], "/prod-vhost"), style="U")
tok("mssql-connection-string", "SQL Server", "MSSQL_CONNECTION", "connection_string",
    lambda r: (lambda pw: Tok(f"Server=tcp:sql-{rs(r, LO, 6)}.database.windows.net,1433;Initial Catalog=Ledger;User ID=sqladmin;Password={pw};Encrypt=True;", secrets=[pw]))(
        V.human_password(r, avoid="'\";{}= ")), style="U", issue=False)
tok("git-credentials-store", "git credential store", "GIT_CREDENTIALS", "credentials",
    lambda r: (lambda t: Tok(f"https://{r.choice(['jkim', 'x-access-token', 'oauth2'])}:{t}@github.com", secrets=[t]))(V.gh(r, "ghp")), style="U", issue=False,
    ex={"A": [("shell", "en", "$ cat ~/.git-credentials\n<<V>>\n$ git config --global credential.helper store")]})
tok("pip-index-url", "private PyPI", "PIP_EXTRA_INDEX_URL", "extra_index_url",
    lambda r: (lambda t: Tok(f"https://ci:{t}@pypi.corp.example.net/simple/", secrets=[t]))(V.human_password(r, avoid="'\" #?/@")), style="U", issue=False,
    ex={"A": [("ini", "en", "[global]\ntimeout = 60\nextra-index-url = <<V>>")]})
