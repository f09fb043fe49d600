"""Random credential-shaped values, generated from public format descriptions.

Every value is produced here from a seeded random.Random; nothing is copied
from any scanner, product or test vector.
"""
import base64
import binascii
import json
import string
import struct

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DIG = string.digits
ALNUM = UP + LO + DIG
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"
B32 = UP + "234567"
# Go big.Int base62 ordering (digits, lower, upper) as used for GitHub/npm checksums
B62 = DIG + LO + UP
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def rs(r, alphabet, n):
    return "".join(r.choice(alphabet) for _ in range(n))


def rbytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


def b64(b):
    return base64.b64encode(b).decode()


def b64url(b, pad=False):
    s = base64.urlsafe_b64encode(b).decode()
    return s if pad else s.rstrip("=")


def uuid4(r):
    h = rs(r, HEX, 32)
    h = h[:12] + "4" + h[13:16] + r.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def base62_enc(n, width):
    out = ""
    while n:
        n, rem = divmod(n, 62)
        out = B62[rem] + out
    return out.rjust(width, "0")


def checksummed62(r, prefix, body_len=30):
    body = rs(r, ALNUM, body_len)
    crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
    return prefix + body + base62_enc(crc, 6)


# ---------------- words / human passwords ----------------
WORDS = ["maple", "tiger", "nimbus", "ember", "falcon", "orchid", "granite", "harbor", "lantern",
         "cobalt", "willow", "pepper", "saffron", "glacier", "meadow", "otter", "quartz", "raven",
         "summit", "thunder", "velvet", "walnut", "zephyr", "bramble", "canyon", "dolphin", "juniper",
         "kestrel", "lotus", "marble", "nectar", "pebble", "rocket", "sierra", "tundra", "umber",
         "violet", "winter", "yonder", "badger", "cricket", "dragon", "fig", "gopher", "hazel",
         "iris", "jasper", "koala", "lemon", "mango", "noodle", "olive", "panda", "quince", "robin",
         "seoul", "busan", "hangang", "kimchi", "bibim", "sunny", "mocha", "latte"]
SPECIALS = "+/=#?@!%$&*'"


def human_password(r, avoid="", need=None, minlen=9):
    """Human-style password: words, digits, specials. `avoid` chars are never used."""
    sp = [c for c in SPECIALS if c not in avoid] or ["!"]
    if need and need not in avoid:
        sp_pick = [need]
    else:
        sp_pick = []
    while True:
        style = r.randrange(7)
        w1, w2 = r.choice(WORDS), r.choice(WORDS)
        d = str(r.randrange(10, 99999))
        s1 = sp_pick[0] if sp_pick else r.choice(sp)
        s2 = r.choice(sp)
        if style == 0:
            p = w1.capitalize() + d + s1 + w2.capitalize()
        elif style == 1:
            p = w1.capitalize() + s1 + d + w2
        elif style == 2:
            # leetspeak
            t = (w1 + w2).replace("a", "@" if "@" not in avoid else "4").replace("o", "0").replace("s", "$" if "$" not in avoid else "5")
            p = t[:1].upper() + t[1:] + s1 + d[:2]
        elif style == 3:
            p = rs(r, ALNUM, r.randrange(5, 8)) + s1 + rs(r, ALNUM, r.randrange(4, 7)) + s2 + d[:2]
        elif style == 4:
            p = w1 + s1 + w2.upper()[:3] + d + s2
        elif style == 5:
            p = d[:3] + w1.capitalize() + s1 + s2 + w2
        else:
            p = w1[:1].upper() + w1[1:] + "_" + w2 + s1 + d
        p = "".join(c for c in p if c not in avoid)
        if len(p) >= minlen and any(c in SPECIALS for c in p) or (len(p) >= minlen and style == 6):
            if need and need not in avoid and need not in p:
                p = p[:3] + need + p[3:]
            return p


def quote_safe_pw(r, ctx):
    """Password appropriate for a quoting context."""
    avoid = {
        "sq": "'",            # inside single quotes
        "dq": "\"$`\\'",       # inside double quotes (shell)
        "bare": "'\"#$&*?;`\\ !",  # unquoted shell word
        "yaml": "'\"#&*!%@`:",  # unquoted YAML scalar
        "ini": "'\";#",
        "url": "'\" ",          # url user-info, unencoded
        "prose": "\"",
        "json": "\"\\",
        "xml": "<>&\"'",
        "make": "$#'\"",
    }[ctx]
    return human_password(r, avoid=avoid)


# ---------------- vendor-shaped tokens ----------------

def aws_key_id(r, prefix="AKIA"):
    return prefix + rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)


def aws_secret(r):
    return rs(r, ALNUM + "+/", 40)


def aws_session_token(r):
    return "IQoJb3JpZ2luX2Vj" + b64(rbytes(r, 301))


def gcp_api_key(r):
    return "AIza" + "Sy" + rs(r, B64URL, 33)


def ya29(r):
    return "ya29.a0" + rs(r, ALNUM, 2) + rs(r, B64URL, 150)


def google_refresh(r):
    return "1//0" + rs(r, "eg", 1) + rs(r, B64URL, 98)


def gocspx(r):
    return "GOCSPX-" + rs(r, B64URL, 28)


def fcm_key(r):
    return "AAAA" + rs(r, B64URL, 7) + ":APA91b" + rs(r, B64URL, 134)


def azure_storage_key(r):
    return b64(rbytes(r, 64))


def azure_sas_sig(r):
    s = b64(rbytes(r, 32))
    return s.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


def azdo_pat(r):
    return rs(r, LO + "234567", 52)


def azure_client_secret(r):
    return rs(r, ALNUM, 3) + r.choice(DIG) + "Q~" + rs(r, ALNUM + "_~.-", 34)


def do_token(r, kind="dop"):
    return f"{kind}_v1_" + rs(r, HEX, 64)


def alibaba_id(r):
    return "LTAI5t" + rs(r, ALNUM, 18)


def ibm_key(r):
    return rs(r, B64URL, 44)


def oci_auth_token(r):
    return rs(r, ALNUM + "();:<>[]{}#+-_.", 20)


def gh(r, p):
    return checksummed62(r, p + "_")


def gh_fine(r):
    return "github_pat_11" + rs(r, UP + DIG, 20) + "0" + "_" + rs(r, ALNUM, 59)


def glpat(r):
    return "glpat-" + rs(r, B64URL, 20)


def bitbucket_app_pw(r):
    return "ATBB" + rs(r, ALNUM, 24) + rs(r, HEX.upper(), 8)


def atlassian_token(r):
    return "ATATT3xFfGF0" + rs(r, B64URL, 170) + "=" + rs(r, HEX.upper(), 8)


def slack(r, kind):
    if kind == "xoxb":
        return f"xoxb-{rs(r, DIG, 12)}-{rs(r, DIG, 13)}-{rs(r, ALNUM, 24)}"
    if kind == "xoxp":
        return f"xoxp-{rs(r, DIG, 12)}-{rs(r, DIG, 12)}-{rs(r, DIG, 13)}-{rs(r, HEX, 32)}"
    if kind == "xapp":
        return f"xapp-1-A{rs(r, UP + DIG, 10)}-{rs(r, DIG, 13)}-{rs(r, HEX, 64)}"


def slack_webhook_path(r):
    return f"T{rs(r, UP + DIG, 10)}/B{rs(r, UP + DIG, 10)}/{rs(r, ALNUM, 24)}"


def discord_bot(r):
    uid = str(r.randrange(10**17, 10**18 * 2))
    return b64url(uid.encode()) + "." + rs(r, B64URL, 6) + "." + rs(r, B64URL, 38)


def discord_webhook(r):
    return str(r.randrange(10**17, 10**18 * 2)), rs(r, B64URL, 68)


def telegram(r):
    return f"{r.randrange(10**8, 10**10)}:AA{rs(r, B64URL, 33)}"


def stripe(r, p):
    return p + "51" + rs(r, ALNUM, 22) + rs(r, ALNUM, 75)


def square_token(r):
    return "EAAA" + rs(r, B64URL, 60)


def braintree_token(r):
    return f"access_token$production${rs(r, LO + DIG, 16)}${rs(r, HEX, 32)}"


def adyen_key(r):
    return ("AQE" + rs(r, ALNUM, 3) + "hmfx" + b64(rbytes(r, 66)) + "-" + b64(rbytes(r, 32))
            + "-" + rs(r, ALNUM + "();:<>[]{}.,", 16))


def sendgrid(r):
    return "SG." + rs(r, B64URL, 22) + "." + rs(r, B64URL, 43)


def mailgun(r):
    if r.random() < 0.5:
        return "key-" + rs(r, HEX, 32)
    return rs(r, HEX, 32) + "-" + rs(r, HEX, 8) + "-" + rs(r, HEX, 8)


def mailchimp(r):
    return rs(r, HEX, 32) + f"-us{r.randrange(1, 22)}"


def openai(r):
    k = r.randrange(3)
    if k == 0:
        return "sk-proj-" + rs(r, B64URL, 74) + "T3BlbkFJ" + rs(r, B64URL, 74)
    if k == 1:
        return "sk-svcacct-" + rs(r, B64URL, 74) + "T3BlbkFJ" + rs(r, B64URL, 74)
    return "sk-" + rs(r, ALNUM, 20) + "T3BlbkFJ" + rs(r, ALNUM, 20)


def anthropic(r):
    return "sk-ant-api03-" + rs(r, B64URL, 93) + "AA"


def jwt(r, claims=None, alg="HS256"):
    header = {"alg": alg, "typ": "JWT"}
    if alg == "RS256":
        header["kid"] = rs(r, B64URL, 20)
    payload = claims or {"sub": str(r.randrange(10**6, 10**9)), "iat": 1764000000 + r.randrange(10**6),
                         "exp": 1766600000 + r.randrange(10**6), "scope": r.choice(["read write", "admin", "api"])}
    sig = b64url(rbytes(r, 32 if alg == "HS256" else 256))
    return b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")).encode()) + "." + sig


def vault_token(r):
    return "hvs.CAESI" + rs(r, B64URL, 86)


def doppler(r):
    return "dp.st." + r.choice(["prd", "stg", "dev"]) + "." + rs(r, ALNUM, 40)


def onepassword_sa(r):
    d = {"signInAddress": "my.1password.com", "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256",
         "iterations": 650000, "salt": b64url(rbytes(r, 16))}, "email": rs(r, LO + DIG, 13) + "@1passwordserviceaccounts.com",
         "srpX": rs(r, HEX, 64), "muk": {"alg": "A256GCM", "ext": True, "k": b64url(rbytes(r, 32)), "key_ops": ["encrypt", "decrypt"],
         "kty": "oct", "kid": "mp"}, "secretKey": "A3-" + rs(r, UP + DIG, 6) + "-" + rs(r, UP + DIG, 6) + "-" + rs(r, UP + DIG, 5),
         "throttleSecret": {"seed": rs(r, HEX, 64), "uuid": rs(r, UP + DIG, 26)}, "deviceUuid": rs(r, LO + DIG, 26)}
    return "ops_" + b64url(json.dumps(d, separators=(",", ":")).encode())


def age_key(r):
    data = rbytes(r, 32)
    five = convertbits(data, 8, 5)
    hrp = "age-secret-key-"
    chk = bech32_checksum(hrp, five)
    return (hrp + "1" + "".join(BECH32[d] for d in five + chk)).upper()


def convertbits(data, frm, to):
    acc = bits = 0
    out = []
    maxv = (1 << to) - 1
    for v in data:
        acc = (acc << frm) | v
        bits += frm
        while bits >= to:
            bits -= to
            out.append((acc >> bits) & maxv)
    if bits:
        out.append((acc << (to - bits)) & maxv)
    return out


def bech32_polymod(values):
    gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1ffffff) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def bech32_checksum(hrp, data):
    values = [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp] + data
    pm = bech32_polymod(values + [0] * 6) ^ 1
    return [(pm >> 5 * (5 - i)) & 31 for i in range(6)]


def crc24(data):
    crc = 0xB704CE
    for b in data:
        crc ^= b << 16
        for _ in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def wrap64(s, n=64):
    return [s[i:i + n] for i in range(0, len(s), n)]


def der_len(n):
    if n < 128:
        return bytes([n])
    if n < 256:
        return bytes([0x81, n])
    return bytes([0x82, n >> 8, n & 0xFF])


def der_int(r, nbytes):
    b = rbytes(r, nbytes)
    b = bytes([b[0] | 0x80]) + b[1:]
    b = b"\x00" + b
    return b"\x02" + der_len(len(b)) + b


def rsa_der(r):
    body = b"\x02\x01\x00" + der_int(r, 256) + b"\x02\x03\x01\x00\x01" + der_int(r, 256) + \
        der_int(r, 128) + der_int(r, 128) + der_int(r, 128) + der_int(r, 128) + der_int(r, 128)
    return b"\x30" + der_len(len(body)) + body


def pem(label, der, headers=None):
    lines = [f"-----BEGIN {label}-----"]
    if headers:
        lines += headers + [""]
    body = wrap64(b64(der))
    return lines, body, f"-----END {label}-----"


def rsa_pem(r):
    return pem("RSA PRIVATE KEY", rsa_der(r))


def ec_pem(r):
    inner = b"\x02\x01\x01\x04\x20" + rbytes(r, 32) + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07" + \
        b"\xa1\x44\x03\x42\x00\x04" + rbytes(r, 64)
    return pem("EC PRIVATE KEY", b"\x30" + der_len(len(inner)) + inner)


def pkcs8_pem(r):
    rsa = rsa_der(r)
    algo = b"\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
    body = b"\x02\x01\x00" + algo + b"\x04" + der_len(len(rsa)) + rsa
    return pem("PRIVATE KEY", b"\x30" + der_len(len(body)) + body)


def encrypted_pem(r):
    if r.random() < 0.5:
        iv = rs(r, HEX.upper(), 32)
        return pem("RSA PRIVATE KEY", rbytes(r, 1192), headers=["Proc-Type: 4,ENCRYPTED", f"DEK-Info: AES-256-CBC,{iv}"])
    hdr = bytes.fromhex("308204fe304006092a864886f70d01050d3033301b06092a864886f70d01050c300e0408") + rbytes(r, 8) + \
        bytes.fromhex("020208003014060828") + rbytes(r, 10)
    return pem("ENCRYPTED PRIVATE KEY", hdr + rbytes(r, 1200))


def sshstr(b):
    return struct.pack(">I", len(b)) + b


def openssh_pem(r):
    pub = rbytes(r, 32)
    pubblob = sshstr(b"ssh-ed25519") + sshstr(pub)
    chk = rbytes(r, 4)
    priv = chk + chk + sshstr(b"ssh-ed25519") + sshstr(pub) + sshstr(rbytes(r, 32) + pub) + sshstr(b"deploy@ci")
    pad = 1
    while len(priv) % 8:
        priv += bytes([pad])
        pad += 1
    blob = b"openssh-key-v1\x00" + sshstr(b"none") + sshstr(b"none") + sshstr(b"") + struct.pack(">I", 1) + \
        sshstr(pubblob) + sshstr(priv)
    lines = ["-----BEGIN OPENSSH PRIVATE KEY-----"]
    return lines, wrap64(b64(blob), 70), "-----END OPENSSH PRIVATE KEY-----"


def pgp_private(r):
    data = b"\x95\x07\x46\x04" + rbytes(r, 900)
    body = wrap64(b64(data))
    c = crc24(data)
    body.append("=" + b64(bytes([(c >> 16) & 255, (c >> 8) & 255, c & 255])))
    return ["-----BEGIN PGP PRIVATE KEY BLOCK-----", ""], body, "-----END PGP PRIVATE KEY BLOCK-----"


def ssh_pub_ed25519(r, comment):
    blob = sshstr(b"ssh-ed25519") + sshstr(rbytes(r, 32))
    return "ssh-ed25519 " + b64(blob) + " " + comment


def ssh_pub_rsa(r, comment):
    blob = sshstr(b"ssh-rsa") + sshstr(b"\x01\x00\x01") + sshstr(b"\x00" + rbytes(r, 256))
    return "ssh-rsa " + b64(blob) + " " + comment


def pem_public(r):
    algo = b"\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
    key = b"\x30\x82\x01\x0a" + der_int(r, 256)[0:0] + b"\x02\x82\x01\x01\x00" + rbytes(r, 256) + b"\x02\x03\x01\x00\x01"
    bitstr = b"\x03" + der_len(len(key) + 1) + b"\x00" + key
    body = algo + bitstr
    der = b"\x30" + der_len(len(body)) + body
    return "-----BEGIN PUBLIC KEY-----\n" + "\n".join(wrap64(b64(der))) + "\n-----END PUBLIC KEY-----"


def wireguard_key(r):
    return b64(rbytes(r, 32))
