"""A profile rebuilt here equals one derived by an independent Go implementation.

The expected values below were produced by `GO_SOURCE` (an implementation of section 5 of the
reference written in Go from the description alone, reading the record files with Go's own
encoding/json) over the deterministic journal `fixture_records` writes. When a Go toolchain is
installed, the last test runs it again and compares the whole output byte for byte, so floats
(the confidences), FNV-1a rule IDs, sorting and the source hash are checked against Go itself.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from core.gocompat.gojson import dumps_indented, go_float
from core.gocompat.gotime import GoTime
from core.profile.model import PreferenceProfile
from core.profile.store import ProfileStore
from core.record.codec import encode_record
from core.record.models import DecisionRecord, Option, Provenance, RejectedReason
from core.record.normalize import normalize_record
from core.store.decisions import DecisionStore

BASE_NS = 1_780_000_000_123_456_789
OPTION_SETS = [
    [
        ("per-record-json", "Per-record JSON"),
        ("single-json", "Single JSON document"),
        ("sqlite", "SQLite <db> & WAL"),
    ],
    [("option-a", "Use a queue"), ("option-b", "Poll  the   directory")],
    [("option-a", "Rewrite in Go"), ("option-b", "Keep Python"), ("option-c", "Ünïcode läbel ß")],
]
KINDS = ["storage_backend", "Storage_Backend ", "concurrency", "language"]
PROJECTS = ["project-0001", "project-0002", "project-0003", "Project-0003", "", "project-0004"]
DOMAINS = ["storage", "Storage", " ipc", "ui", "", "concurrency"]
CUSTOMS = ["Use  SQLite   after all", "use sqlite after ALL", "A hand-rolled log file"]


def fixture_records(count: int = 160, seed: int = 7) -> list[DecisionRecord]:
    """A varied journal: case and space variants, reused option IDs, custom choices, model
    provenance, confidences around 0.80, deleted records and equal timestamps."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        kind = rng.choice(KINDS)
        options = (
            OPTION_SETS[KINDS.index(kind) % 3] if rng.random() < 0.85 else rng.choice(OPTION_SETS)
        )
        custom = rng.random() < 0.08
        selected = (
            "" if custom else (options[0][0] if rng.random() < 0.8 else rng.choice(options)[0])
        )
        stamp = GoTime(BASE_NS + rng.randrange(0, 50) * 1_000_000_000 + (index % 3))
        record = DecisionRecord(
            schema_version=1,
            id=f"decision-fx-{index:04d}",
            revision=1,
            created_at=stamp,
            updated_at=stamp,
            project_id=rng.choice(PROJECTS),
            domains=rng.sample(DOMAINS, rng.randrange(0, 4)),
            decision_kind=kind,
            problem=f"Fixture problem {index % 9}",
            options=[
                Option(id=option_id, label=label, order=n + 1, source="model")
                for n, (option_id, label) in enumerate(options)
            ],
            selected_option_id=selected,
            custom_selection=rng.choice(CUSTOMS) if custom else "",
            selection_reason_raw=rng.choice(["because it is simpler", "faster & safer"]),
            rejected_reasons=[
                RejectedReason(option_id=i, reason="not this one", source="user")
                for i, _ in options
                if i != selected
            ],
            detector_confidence=rng.choice([0.79, 0.7999999, 0.8, 0.81, 0.93, 1.0]),
            status="deleted" if rng.random() < 0.05 else rng.choice(["completed", "corrected"]),
            provenance=Provenance(
                options="model",
                selection=rng.choice(["user", "user", "user", "User", "model"]),
                rationale=rng.choice(["user", "user", "user", "runtime"]),
                summary="runtime",
            ),
        )
        if record.status == "deleted":
            record.deleted_at = stamp
        out.append(normalize_record(record))
    return out


def write_journal(root: Path, count: int, seed: int) -> ProfileStore:
    """Record files written directly, as another implementation would have left them."""
    records_dir = root / "records"
    records_dir.mkdir(parents=True)
    for record in fixture_records(count, seed):
        (records_dir / f"{record.id}.json").write_bytes(encode_record(record))
    store = DecisionStore(root)
    return ProfileStore(store.root, store)


def comparable(profile: PreferenceProfile) -> str:
    """The source-derived part of the profile in the layout the Go program prints."""
    skip = ("enabled", "pinned", "user_note", "user_note_redacted", "updated_at")
    rules = [
        {k: v for k, v in rule.to_go_dict().items() if k not in skip} for rule in profile.rules
    ]
    return dumps_indented(
        {
            "record_count": profile.record_count,
            "source_hash": profile.source_hash,
            "rules": rules or None,
        }
    )


EXPECTED = {
    (160, 7): (
        "00cd73456dc77fcb4683e609dab55e4b7781cb72ddb90ebb881057fc53d441dc",
        148,
        "journal-142545ec2323896cd6862ea2ce285b78",
        [
            ("preference-bfedb45f", "project", "project-0001", 2, 0, "0.6300000000000001"),
            ("preference-6cd6e2aa", "project", "project-0001", 4, 1, "0.6900000000000001"),
            ("preference-75377e0d", "project", "project-0003", 5, 1, "0.7600000000000001"),
            ("preference-30745cce", "project", "project-0003", 6, 1, "0.8300000000000002"),
            ("preference-0889d898", "project", "project-0004", 2, 1, "0.5500000000000002"),
            ("preference-a8edb93c", "domain", "concurrency", 5, 1, "0.95"),
            ("preference-800e44a1", "domain", "ipc", 4, 0, "0.91"),
            ("preference-5ac08687", "domain", "storage", 13, 6, "0.95"),
            ("preference-fa549a2b", "global", "all", 13, 3, "0.95"),
            ("preference-8f37ef6c", "global", "all", 10, 4, "0.95"),
        ],
    ),
    (400, 3): (
        "2d83ef90e8635d177d5687a298e770a12d9727882e1476699c3aea82bf8a7b5d",
        378,
        "journal-6a4fae511faef75cdecf1d8e823b6b61",
        [
            ("preference-75377e0d", "project", "Project-0003", 11, 4, "0.94"),
            ("preference-4384bee8", "project", "project-0001", 4, 0, "0.77"),
            ("preference-0928015a", "project", "project-0002", 7, 2, "0.8200000000000001"),
            ("preference-5b307ac5", "project", "project-0002", 7, 0, "0.95"),
            ("preference-30745cce", "project", "project-0003", 9, 3, "0.8800000000000001"),
            ("preference-dd1c48e3", "project", "project-0004", 8, 4, "0.73"),
            ("preference-ef3cbb7f", "domain", "concurrency", 11, 2, "0.95"),
            ("preference-800e44a1", "domain", "ipc", 12, 5, "0.95"),
            ("preference-5212f5ba", "domain", "ipc", 10, 2, "0.95"),
            ("preference-8befd5b6", "domain", "storage", 14, 5, "0.95"),
            ("preference-13488049", "domain", "storage", 14, 5, "0.95"),
            ("preference-80c09a83", "domain", "ui", 9, 4, "0.95"),
            ("preference-960f5014", "domain", "ui", 7, 2, "0.95"),
            ("preference-8f37ef6c", "global", "all", 27, 10, "0.95"),
        ],
    ),
}


@pytest.mark.parametrize(("count", "seed"), sorted(EXPECTED))
def test_rebuild_matches_the_go_derivation(tmp_path: Path, count: int, seed: int) -> None:
    digest, record_count, source_hash, rules = EXPECTED[(count, seed)]
    profile = write_journal(tmp_path / "journal", count, seed).rebuild().profile
    assert (profile.record_count, profile.source_hash) == (record_count, source_hash)
    ours = [
        (r.id, r.scope, r.scope_key, len(r.support_decision_ids), len(r.contradiction_decision_ids))
        for r in profile.rules
    ]
    assert ours == [row[:5] for row in rules]
    assert [go_float(r.confidence) for r in profile.rules] == [row[5] for row in rules]
    assert hashlib.sha256(comparable(profile).encode()).hexdigest() == digest


@pytest.mark.skipif(shutil.which("go") is None, reason="needs a Go toolchain")
def test_go_program_agrees_byte_for_byte(tmp_path: Path) -> None:
    profiles = write_journal(tmp_path / "journal", 160, 7)
    source = tmp_path / "profile_reference.go"
    source.write_text(GO_SOURCE)
    env_cache = {"GOCACHE": str(tmp_path / "gocache"), "GOPATH": str(tmp_path / "gopath")}
    run = subprocess.run(
        ["go", "run", str(source), str(profiles.root)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env_cache, "GO111MODULE": "off"},
        check=True,
    )
    assert run.stdout == comparable(profiles.rebuild().profile)


GO_SOURCE = r"""package main

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
	"path/filepath"
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

// Written from kernforge-reference.md section 5 only, as an independent cross-check.

func shortStableID(s string) string {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(strings.TrimSpace(s))))
	return fmt.Sprintf("%08x", h.Sum32())
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func dedupeSorted(items []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, it := range items {
		k := strings.ToLower(strings.TrimSpace(it))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
	}
	sort.Strings(out)
	return out
}

func capList(items []string) []string {
	if len(items) > 2048 {
		return items[:2048]
	}
	return items
}

type Rule struct {
	ID              string   `json:"id"`
	Scope           string   `json:"scope"`
	ScopeKey        string   `json:"scope_key,omitempty"`
	Criterion       string   `json:"criterion"`
	Preference      string   `json:"preference"`
	PreferenceLabel string   `json:"preference_label,omitempty"`
	Support         []string `json:"support_decision_ids"`
	Contradictions  []string `json:"contradiction_decision_ids,omitempty"`
	Projects        []string `json:"support_project_ids,omitempty"`
	Confidence      float64  `json:"confidence"`
}

type Out struct {
	RecordCount int    `json:"record_count"`
	SourceHash  string `json:"source_hash"`
	Rules       []Rule `json:"rules"`
}

type cand struct {
	label    string
	ids      []string
	projects []string
}

type group struct {
	scope, key, criterion string
	order                 []string
	cands                 map[string]*cand
}

func signature(r Record) (string, string, bool) {
	if c := strings.TrimSpace(r.CustomSelection); c != "" {
		return "custom:" + shortStableID(strings.ToLower(collapse(c))), c, true
	}
	sel := strings.TrimSpace(r.SelectedOptionID)
	if sel == "" {
		return "", "", false
	}
	for _, o := range r.Options {
		if strings.TrimSpace(o.ID) == sel {
			l := strings.TrimSpace(o.Label)
			return strings.ToLower(sel) + "@" + shortStableID(strings.ToLower(collapse(l))), l, true
		}
	}
	return "", "", false
}

func promote(scope string, s, p, c int) bool {
	if c > 0 && (s <= c || float64(s)/float64(s+c) < 2.0/3.0) {
		return false
	}
	switch scope {
	case "project":
		return s >= 2
	case "domain":
		return s >= 3 && p >= 2
	case "global":
		return s >= 5 && p >= 3
	}
	return false
}

func confidence(scope string, s, p, c int) float64 {
	base := 0.35
	switch scope {
	case "project":
		base = 0.45
	case "domain":
		base = 0.55
	case "global":
		base = 0.60
	}
	v := base + 0.07*float64(s) + 0.04*float64(p) - 0.08*float64(c)
	if v < 0.10 {
		v = 0.10
	}
	if v > 0.95 {
		v = 0.95
	}
	return v
}

func main() {
	dir := os.Args[1]
	files, _ := filepath.Glob(filepath.Join(dir, "records", "*.json"))
	records := []Record{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			panic(err)
		}
		if strings.EqualFold(strings.TrimSpace(r.Status), "deleted") {
			continue
		}
		records = append(records, r)
	}
	sort.Slice(records, func(i, j int) bool {
		a, b := records[i], records[j]
		if !a.UpdatedAt.Equal(b.UpdatedAt) {
			return a.UpdatedAt.After(b.UpdatedAt)
		}
		return a.ID > b.ID
	})
	entries := []string{}
	for _, r := range records {
		data, _ := json.Marshal(r)
		sum := sha256.Sum256(data)
		entries = append(entries, r.ID+"\x00"+hex.EncodeToString(sum[:]))
	}
	sort.Strings(entries)
	sum := sha256.Sum256([]byte(strings.Join(entries, "\x01")))
	out := Out{RecordCount: len(records), SourceHash: "journal-" + hex.EncodeToString(sum[:16])}

	groups := map[string]*group{}
	gorder := []string{}
	for _, r := range records {
		kind := strings.ToLower(strings.TrimSpace(r.DecisionKind))
		if kind == "" || !strings.EqualFold(strings.TrimSpace(r.Provenance.Selection), "user") ||
			!strings.EqualFold(strings.TrimSpace(r.Provenance.Rationale), "user") ||
			strings.TrimSpace(r.SelectionReasonRaw) == "" || !(r.DetectorConfidence >= 0.80) {
			continue
		}
		sig, label, ok := signature(r)
		if !ok {
			continue
		}
		type ctx struct{ scope, key string }
		ctxs := []ctx{}
		pid := strings.TrimSpace(r.ProjectID)
		if pid != "" {
			ctxs = append(ctxs, ctx{"project", pid})
		}
		seen := map[string]bool{}
		for _, d := range r.Domains {
			k := strings.ToLower(strings.TrimSpace(d))
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			ctxs = append(ctxs, ctx{"domain", k})
		}
		ctxs = append(ctxs, ctx{"global", "all"})
		for _, c := range ctxs {
			gk := c.scope + "|" + strings.ToLower(strings.TrimSpace(c.key)) + "|" + kind
			g := groups[gk]
			if g == nil {
				g = &group{scope: c.scope, key: c.key, criterion: kind, cands: map[string]*cand{}}
				groups[gk] = g
				gorder = append(gorder, gk)
			}
			cd := g.cands[sig]
			if cd == nil {
				cd = &cand{label: label}
				g.cands[sig] = cd
				g.order = append(g.order, sig)
			}
			cd.ids = append(cd.ids, r.ID)
			if pid != "" {
				cd.projects = append(cd.projects, pid)
			}
		}
	}
	rank := map[string]int{"project": 0, "domain": 1, "global": 2}
	for _, gk := range gorder {
		g := groups[gk]
		for _, sig := range g.order {
			cd := g.cands[sig]
			support := dedupeSorted(cd.ids)
			projects := dedupeSorted(cd.projects)
			others := []string{}
			for _, osig := range g.order {
				if osig != sig {
					others = append(others, g.cands[osig].ids...)
				}
			}
			contra := dedupeSorted(others)
			if !promote(g.scope, len(support), len(projects), len(contra)) {
				continue
			}
			out.Rules = append(out.Rules, Rule{
				ID: "preference-" + shortStableID(gk+"|"+sig), Scope: g.scope, ScopeKey: g.key,
				Criterion: g.criterion, Preference: sig, PreferenceLabel: cd.label,
				Support: capList(support), Contradictions: capList(contra),
				Projects: capList(projects),
				Confidence: confidence(g.scope, len(support), len(projects), len(contra)),
			})
		}
	}
	sort.Slice(out.Rules, func(i, j int) bool {
		a, b := out.Rules[i], out.Rules[j]
		if rank[a.Scope] != rank[b.Scope] {
			return rank[a.Scope] < rank[b.Scope]
		}
		if a.ScopeKey != b.ScopeKey {
			return a.ScopeKey < b.ScopeKey
		}
		if a.Criterion != b.Criterion {
			return a.Criterion < b.Criterion
		}
		return a.Preference < b.Preference
	})
	data, _ := json.MarshalIndent(out, "", "  ")
	os.Stdout.Write(append(data, '\n'))
}
"""
