// Command go_oracle runs the reference redactor's six patterns on Go's own regexp engine.
//
// It is our transcription of the reference brief, section 4 "Redaction" (the patterns and
// the credential test), not the reference's code. Its job is to pin the Go semantics our
// Python port must reproduce: RE2 case folding (s/ſ, k/K), ASCII-only \b, Go's \s, byte
// lengths, unicode classes. make_go_vectors.py feeds it inputs and stores its answers in
// go_vectors.jsonl, which tests/core/test_redaction.py replays without a Go toolchain.
//
// Usage: go run . < inputs.jsonl > answers.jsonl (one JSON string per input line).
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"unicode"
)

type rule struct {
	name string
	re   *regexp.Regexp
}

var rules = []rule{
	{"openai_api_key", regexp.MustCompile(`(?i)\bsk-[A-Za-z0-9_-]{20,}\b`)},
	{"github_token", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9_]{20,}\b`)},
	{"github_token", regexp.MustCompile(`github_pat_[A-Za-z0-9_]{20,}`)},
	{"private_key", regexp.MustCompile(`(?is)-----BEGIN [A-Z ]+ PRIVATE KEY-----.*?-----END [A-Z ]+ PRIVATE KEY-----`)},
	{"bearer_token", regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._-]{20,}`)},
	{"signed_url_secret", regexp.MustCompile(`(?i)(sig|signature|token|access_token|X-Amz-Signature)=[A-Za-z0-9%._-]+`)},
}

var pw = regexp.MustCompile(`(?i)(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)(\s*[:=]\s*)(["']?)([^\s"']{6,})(["']?)`)

var placeholders = []string{"change_me", "changeme", "change-me", "replace_me", "replaceme", "replace-me", "your_",
	"your-", "yoursecret", "yourtoken", "yourkey", "placeholder", "example", "sample", "dummy",
	"fake", "todo", "xxxx", "<", ">", "{{", "}}", "dev_secret", "dev-secret", "devsecret",
	"test_secret", "default_secret", "insert_", "put_your", "change_this", "changethis"}
var markers = []string{"(", ")", "[", "]", "request.", "self.", "os.environ", "os.getenv", "getenv", "config[",
	"config.", "form.", "form[", "args.", "args[", "json.", "json[", "hashlib", "hmac",
	"secrets.", "uuid", "generate", "hash(", `"+ "`, `" +"`, "%s", "{}", `f"`, "f'"}

func cred(v string) bool {
	t := strings.TrimSpace(v)
	if len(t) < 16 {
		return false
	}
	l := strings.ToLower(t)
	for _, p := range placeholders {
		if strings.Contains(l, p) {
			return false
		}
	}
	for _, m := range markers {
		if strings.Contains(t, m) {
			return false
		}
	}
	var d, s, u, lo bool
	for _, r := range t {
		if unicode.IsDigit(r) {
			d = true
		} else if !unicode.IsLetter(r) && r != '_' && r != '-' {
			s = true
		}
		if unicode.IsUpper(r) {
			u = true
		}
		if unicode.IsLower(r) {
			lo = true
		}
	}
	return d || s || (u && lo && len(t) >= 20)
}

func redact(text string) (string, []string) {
	if strings.TrimSpace(text) == "" {
		return text, nil
	}
	var names []string
	for _, r := range rules {
		if r.re.MatchString(text) {
			text = r.re.ReplaceAllLiteralString(text, "[REDACTED:"+r.name+"]")
			names = append(names, r.name)
		}
	}
	changed := false
	text = pw.ReplaceAllStringFunc(text, func(m string) string {
		g := pw.FindStringSubmatch(m)
		if !cred(g[4]) {
			return m
		}
		changed = true
		return g[1] + g[2] + g[3] + "[REDACTED:password_assignment]" + g[5]
	})
	if changed {
		names = append(names, "password_assignment")
	}
	return text, names
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			panic(err)
		}
		t, n := redact(s)
		if n == nil {
			n = []string{}
		}
		b, _ := json.Marshal([]interface{}{t, n})
		out.Write(b)
		out.WriteString("\n")
	}
}
