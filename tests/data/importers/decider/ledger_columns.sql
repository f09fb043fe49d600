-- The same ledger with one column per field (v1 rows), as a store without a JSON column has it.
CREATE TABLE rows (key TEXT PRIMARY KEY, v INTEGER, source TEXT, asked_at TEXT, initiative TEXT,
  class TEXT, header TEXT, question TEXT, options TEXT, recommended TEXT, answer TEXT, pick_type TEXT);
INSERT INTO rows VALUES ('transcript:sess-9:toolu_z', 1, 'transcript', '2026-06-01T09:00:00Z', 'widgets', 'tech_design', 'Cache', 'Which cache?', '["Redis (Recommended)","Memcached"]', 'Redis', 'Memcached', 'option');
