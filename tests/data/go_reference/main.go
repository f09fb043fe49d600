// Generates byte-compatibility vectors with Go's encoding/json, following the field layout
// described in shared/brief/kernforge-reference.md (written from that description, not copied).
// Run: go run main.go > ../go_vectors.json   (needs Go >= 1.22 for \b and \f escapes; our
// vectors avoid those two characters so older toolchains produce the same bytes).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"sort"
	"strings"
	"time"
)

type Option struct {
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	Description string   `json:"description,omitempty"`
	Pros        []string `json:"pros,omitempty"`
	Cons        []string `json:"cons,omitempty"`
	Recommended bool     `json:"recommended,omitempty"`
	Order       int      `json:"order,omitempty"`
	Source      string   `json:"source,omitempty"`
}

type Rejection struct {
	OptionID string `json:"option_id"`
	Reason   string `json:"reason,omitempty"`
	Source   string `json:"source,omitempty"`
}

type Provenance struct {
	Options   string `json:"options,omitempty"`
	Selection string `json:"selection,omitempty"`
	Rationale string `json:"rationale,omitempty"`
	Summary   string `json:"summary,omitempty"`
}

type Redaction struct {
	Redacted bool     `json:"redacted,omitempty"`
	Patterns []string `json:"patterns,omitempty"`
}

type Record struct {
	SchemaVersion       int         `json:"schema_version"`
	ID                  string      `json:"id"`
	Revision            int         `json:"revision"`
	CreatedAt           time.Time   `json:"created_at"`
	UpdatedAt           time.Time   `json:"updated_at"`
	SessionID           string      `json:"session_id,omitempty"`
	FeatureID           string      `json:"feature_id,omitempty"`
	GoalID              string      `json:"goal_id,omitempty"`
	EditLoopID          string      `json:"edit_loop_id,omitempty"`
	ProjectID           string      `json:"project_id,omitempty"`
	ProjectAlias        string      `json:"project_alias,omitempty"`
	Workspace           string      `json:"workspace,omitempty"`
	WorkspaceHash       string      `json:"workspace_hash,omitempty"`
	Domains             []string    `json:"domains,omitempty"`
	Languages           []string    `json:"languages,omitempty"`
	DecisionKind        string      `json:"decision_kind,omitempty"`
	RiskLevel           string      `json:"risk_level,omitempty"`
	Problem             string      `json:"problem"`
	TaskFingerprint     string      `json:"task_fingerprint,omitempty"`
	EvidenceFingerprint string      `json:"evidence_fingerprint,omitempty"`
	Options             []Option    `json:"options"`
	RecommendedOptionID string      `json:"recommended_option_id,omitempty"`
	SelectedOptionID    string      `json:"selected_option_id,omitempty"`
	CustomSelection     string      `json:"custom_selection,omitempty"`
	SelectionReasonRaw  string      `json:"selection_reason_raw,omitempty"`
	RejectedReasons     []Rejection `json:"rejected_reasons,omitempty"`
	SummarySentence     string      `json:"summary_sentence,omitempty"`
	EvidenceRefs        []string    `json:"evidence_refs,omitempty"`
	Tags                []string    `json:"tags,omitempty"`
	DetectorConfidence  float64     `json:"detector_confidence,omitempty"`
	Status              string      `json:"status"`
	Provenance          Provenance  `json:"provenance"`
	Redaction           Redaction   `json:"redaction"`
	DeletedAt           *time.Time  `json:"deleted_at,omitempty"`
}

func shortStableID(s string) string {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(s))))
	return fmt.Sprintf("%08x", h.Sum32())
}

func evidenceFingerprint(opts []Option, refs []string) string {
	parts := []string{}
	for _, o := range opts {
		parts = append(parts, strings.ToLower(strings.TrimSpace(o.ID))+"="+strings.ToLower(strings.TrimSpace(o.Label)))
	}
	sort.Strings(parts)
	cleaned := []string{}
	for _, r := range refs {
		if t := strings.TrimSpace(r); t != "" {
			cleaned = append(cleaned, t)
		}
	}
	sort.Strings(cleaned)
	sum := sha256.Sum256([]byte(strings.Join(append(parts, cleaned...), "\x00")))
	return "evidence-" + hex.EncodeToString(sum[:16])
}

type idOption struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

type idPayload struct {
	ProjectID           string     `json:"project_id"`
	TaskFingerprint     string     `json:"task_fingerprint"`
	EvidenceFingerprint string     `json:"evidence_fingerprint"`
	Problem             string     `json:"problem"`
	Options             []idOption `json:"options"`
}

func decisionID(r Record) string {
	opts := []idOption{}
	for _, o := range r.Options {
		opts = append(opts, idOption{strings.TrimSpace(o.ID), strings.TrimSpace(o.Label)})
	}
	sort.SliceStable(opts, func(i, j int) bool {
		if opts[i].ID != opts[j].ID {
			return opts[i].ID < opts[j].ID
		}
		return opts[i].Label < opts[j].Label
	})
	b, _ := json.Marshal(idPayload{strings.TrimSpace(r.ProjectID), strings.TrimSpace(r.TaskFingerprint),
		strings.TrimSpace(r.EvidenceFingerprint), strings.TrimSpace(r.Problem), opts})
	sum := sha256.Sum256(b)
	return "decision-" + hex.EncodeToString(sum[:16])
}

type vector struct {
	Name          string `json:"name"`
	Indented      string `json:"indented"`
	Compact       string `json:"compact"`
	TaskFP        string `json:"task_fingerprint"`
	EvidenceFP    string `json:"evidence_fingerprint"`
	DecisionID    string `json:"decision_id"`
	Session       string `json:"session"`
	ShortStableIn string `json:"short_stable_in"`
	ShortStable   string `json:"short_stable"`
}

func main() {
	created := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	updated := time.Date(2026, 3, 4, 5, 6, 8, 0, time.UTC)
	deleted := time.Date(2026, 3, 5, 0, 0, 0, 500000000, time.UTC)
	problems := []string{
		"Choose the canonical cross-project decision storage layout",
		"캐시 무효화 전략을 <선택> & 결정 — \u2028 line sep \u2029 para",
		"Ünïcode ß İstanbul ΣΑΣ \"quoted\" \\ back \t tab\n newline \x01 ctl",
		"emoji 🚀 and <script>alert('x')</script> & co",
	}
	confidences := []float64{0.91, 1, 0.65, 0.8000000000000002}
	out := []vector{}
	for i, p := range problems {
		opts := []Option{
			{ID: "per-record-json", Label: "Per-record JSON <files>", Description: "One file & one lock", Pros: []string{"no global lock"}, Recommended: true, Order: 1, Source: "model"},
			{ID: "single-json", Label: "Single JSON document", Description: "Everything in one file", Cons: []string{"read-modify-write"}, Order: 2, Source: "model"},
		}
		session := fmt.Sprintf("session-%d", i)
		r := Record{
			SchemaVersion: 1, Revision: i + 1, CreatedAt: created, UpdatedAt: updated,
			SessionID: session, ProjectID: "project-96a135c525cf3178", ProjectAlias: "kernforge",
			Workspace: "/home/u/src/kernforge", WorkspaceHash: strings.Repeat("ab", 32),
			Domains: []string{"storage", "dashboard"}, DecisionKind: "storage_backend", RiskLevel: "medium",
			Problem: p, Options: opts, RecommendedOptionID: "per-record-json", SelectedOptionID: "single-json",
			SelectionReasonRaw: "simpler & faster <for now>",
			RejectedReasons:    []Rejection{{OptionID: "per-record-json", Reason: "too many files", Source: "user"}},
			SummarySentence:    "s", DetectorConfidence: confidences[i], Status: "completed",
			Provenance: Provenance{Options: "model", Selection: "user", Rationale: "user", Summary: "runtime"},
		}
		if i == 2 {
			r.Status = "deleted"
			r.DeletedAt = &deleted
			r.Redaction = Redaction{Redacted: true, Patterns: []string{"openai_api_key"}}
			r.EvidenceRefs = []string{"b.go:10", "a.go:3"}
		}
		if i == 3 {
			r.SelectedOptionID = ""
			r.CustomSelection = "Hybrid: index + files"
			r.RejectedReasons = append(r.RejectedReasons, Rejection{OptionID: "single-json", Reason: "no", Source: "user"})
			r.Tags = []string{"x"}
		}
		r.TaskFingerprint = "task-" + shortStableID(session+"\x00"+p)
		r.EvidenceFingerprint = evidenceFingerprint(opts, r.EvidenceRefs)
		r.ID = decisionID(r)
		ind, _ := json.MarshalIndent(r, "", "  ")
		cmp, _ := json.Marshal(r)
		out = append(out, vector{Name: fmt.Sprintf("record-%d", i), Indented: string(ind) + "\n", Compact: string(cmp),
			TaskFP: r.TaskFingerprint, EvidenceFP: r.EvidenceFingerprint, DecisionID: r.ID, Session: session,
			ShortStableIn: p, ShortStable: shortStableID(p)})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	enc.Encode(out)
}
