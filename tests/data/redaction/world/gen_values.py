"""Random value generators for the Decision Journal redaction corpora.

Everything here is written from public knowledge of credential *formats*
(vendor docs, blog posts announcing token formats, public scanner rule names).
No scanner code or test data is copied.  Stdlib only; all randomness flows
through the `random.Random` instance passed in, so output is deterministic
per seed.
"""
import base64
import json
import string
import uuid as _uuid
import zlib

DIG = string.digits
LOW = string.ascii_lowercase
UPP = string.ascii_uppercase
LET = string.ascii_letters
B62 = DIG + UPP + LOW
ALNUM = DIG + LET
HEXL = "0123456789abcdef"
HEXU = "0123456789ABCDEF"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
B32L = "abcdefghijklmnopqrstuvwxyz234567"
UPAN = UPP + DIG
LOWAN = LOW + DIG
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(rng, alpha, n):
    return "".join(rng.choice(alpha) for _ in range(n))


def rbytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def b64(rng, n):
    return base64.b64encode(rbytes(rng, n)).decode()


def b64u_nopad(data: bytes):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def uuid4(rng):
    return str(_uuid.UUID(int=rng.getrandbits(128), version=4))


def b62enc(num, width):
    out = ""
    while num:
        num, rem = divmod(num, 62)
        out = B62[rem] + out
    return out.rjust(width, "0")


def crc_b62_token(rng, prefix, body_len=30):
    """GitHub-style token: prefix + base62 body + 6-char base62 CRC32 of body
    (the public description of the 2021 GitHub token format; npm uses the same
    scheme)."""
    body = r(rng, ALNUM, body_len)
    return prefix + body + b62enc(zlib.crc32(body.encode()), 6)


def digits(rng, n):
    return str(rng.randint(1, 9)) + r(rng, DIG, n - 1)


# ---------------------------------------------------------------- passwords
WORDS = ["Summer", "Winter", "Dragon", "Falcon", "Orange", "Kimchi", "Seoul",
         "Busan", "Tiger", "Purple", "Rocket", "Coffee", "Pirate", "Galaxy",
         "Hanbit", "Maple", "Jeju", "Banana", "Nimbus", "Orbit", "Pangyo",
         "Walrus", "Cobalt", "Mango", "Hallasan", "Quartz", "Yeouido", "Zebra"]
SYMS = "!@#%?+/=&*-_.^~"


def human_pw(rng, allow=SYMS, force=None):
    """Password the way people actually pick them."""
    style = rng.randrange(6)
    sym = lambda: rng.choice(allow)  # noqa: E731
    if style == 0:
        pw = rng.choice(WORDS) + str(rng.randint(1990, 2027)) + sym()
    elif style == 1:
        pw = rng.choice(WORDS) + sym() + rng.choice(WORDS).lower() + r(rng, DIG, rng.randint(2, 4))
    elif style == 2:
        pw = r(rng, ALNUM + allow, rng.randint(14, 22))
    elif style == 3:
        w = rng.choice(WORDS)
        w = w.replace("a", "@" if "@" in allow else "4").replace("o", "0").replace("e", "3")
        pw = w + sym() + r(rng, DIG, 3) + sym()
    elif style == 4:
        pw = r(rng, ALNUM, 6) + sym() + r(rng, ALNUM, 6) + sym() + r(rng, ALNUM, 4)
    else:
        pw = rng.choice(WORDS).lower() + "-" + rng.choice(WORDS).lower() + "-" + rng.choice(WORDS).lower() + str(rng.randint(1, 99))
    if force:
        pos = rng.randint(1, len(pw) - 1)
        pw = pw[:pos] + force + pw[pos:]
    # do not end with a sentence-ish character, never start with '-'
    while pw[-1] in ".-" or pw[0] in "-=":
        pw = pw.strip(".-=") + r(rng, DIG, 2)
    return pw


def url_pw(rng):
    """Password containing characters that *should* be percent-encoded in a
    URL but are routinely pasted raw: # ? / @ ! % +"""
    force = rng.choice(["#", "?", "/", "@", "!", "%", "+", "#", "@", None])
    return human_pw(rng, allow="!#%?+/@*-_", force=force)


def plain_pw(rng):
    return human_pw(rng, allow="!#%?+/=@*-_.^")


def xml_pw(rng):
    return human_pw(rng, allow="!#%?+/=@*-_.^")


# ---------------------------------------------------------------- PEM blocks
def pem_block(rng, label, der_prefix_b64, nbytes, line=64):
    body = (der_prefix_b64 + b64(rng, nbytes)).rstrip("=")
    body = body[: len(body) - len(body) % 4]
    lines = [body[i:i + line] for i in range(0, len(body), line)]
    return "-----BEGIN %s-----\n%s\n-----END %s-----" % (label, "\n".join(lines), label)


def pem_rsa(rng):
    return pem_block(rng, "RSA PRIVATE KEY", "MIIEpAIBAAKCAQEA", rng.choice([1180, 1190, 1200]))


def pem_pkcs8(rng):
    return pem_block(rng, "PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ", 1190)


def pem_ec(rng):
    return pem_block(rng, "EC PRIVATE KEY", "MHcCAQEEI", 112)


def pem_openssh(rng):
    return pem_block(rng, "OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", 300, line=70)


def pem_encrypted(rng):
    return pem_block(rng, "ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1230)


def pgp_private(rng):
    body = "lQOYBG" + b64(rng, 700)
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    crc = "=" + b64(rng, 3)
    return ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(lines) + "\n" + crc +
            "\n-----END PGP PRIVATE KEY BLOCK-----")


def pem_cert(rng):  # public
    return pem_block(rng, "CERTIFICATE", "MIIDdzCCAl+gAwIBAgIU", 560)


def pem_pubkey(rng):  # public
    return pem_block(rng, "PUBLIC KEY", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 260)


def ssh_ed25519_pub(rng, comment=None):
    s = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + b64(rng, 33)[:43]
    return s + (" " + comment if comment else "")


def ssh_rsa_pub(rng, comment=None):
    s = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ" + b64(rng, 380).rstrip("=")
    return s + (" " + comment if comment else "")


# ---------------------------------------------------------------- JWT
def jwt(rng, alg=None, claims=None):
    alg = alg or rng.choice(["HS256", "RS256", "ES256"])
    hdr = {"alg": alg, "typ": "JWT"}
    if alg != "HS256":
        hdr["kid"] = r(rng, B64URL, 20)
    iat = rng.randint(1735689600, 1798761600)
    c = {"sub": uuid4(rng), "iat": iat, "exp": iat + rng.choice([900, 3600, 86400])}
    if claims:
        c.update(claims)
    sig_len = {"HS256": 43, "RS256": 342, "ES256": 86}[alg]
    return (b64u_nopad(json.dumps(hdr, separators=(",", ":")).encode()) + "." +
            b64u_nopad(json.dumps(c, separators=(",", ":")).encode()) + "." +
            r(rng, B64URL, sig_len))
