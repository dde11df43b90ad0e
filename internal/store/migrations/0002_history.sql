-- revision counts every change to a session's messages and parts. A process
-- that keeps a session's history in memory counts its own changes; when the
-- stored revision differs from its count, another process wrote to the
-- session and the history is read again.
ALTER TABLE session ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER message_revision_insert AFTER INSERT ON message BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = NEW.session_id;
END;
CREATE TRIGGER message_revision_update AFTER UPDATE ON message BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = NEW.session_id;
END;
CREATE TRIGGER message_revision_delete AFTER DELETE ON message BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = OLD.session_id;
END;
CREATE TRIGGER part_revision_insert AFTER INSERT ON part BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = NEW.session_id;
END;
CREATE TRIGGER part_revision_update AFTER UPDATE ON part BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = NEW.session_id;
END;
CREATE TRIGGER part_revision_delete AFTER DELETE ON part BEGIN
	UPDATE session SET revision = revision + 1 WHERE id = OLD.session_id;
END;

-- message_meta holds the fields of a message's JSON that queries select or
-- add up (compaction summaries, unfinished answers, usage statistics), kept
-- by triggers so that no query decodes every message.
CREATE TABLE message_meta (
	id                 TEXT PRIMARY KEY REFERENCES message (id) ON DELETE CASCADE,
	session_id         TEXT NOT NULL,
	role               TEXT NOT NULL,
	parent_id          TEXT NOT NULL,
	summary            INTEGER NOT NULL,
	finish             TEXT NOT NULL,
	failed             INTEGER NOT NULL,
	completed          INTEGER NOT NULL,
	time_created       INTEGER NOT NULL,
	provider_id        TEXT NOT NULL,
	model_id           TEXT NOT NULL,
	agent              TEXT NOT NULL,
	cost               REAL NOT NULL,
	tokens_input       INTEGER NOT NULL,
	tokens_output      INTEGER NOT NULL,
	tokens_reasoning   INTEGER NOT NULL,
	tokens_cache_read  INTEGER NOT NULL,
	tokens_cache_write INTEGER NOT NULL
);
CREATE INDEX message_meta_summary ON message_meta (session_id, id) WHERE summary = 1;
CREATE INDEX message_meta_open ON message_meta (session_id, id) WHERE role = 'assistant' AND completed = 0 AND failed = 0;
CREATE INDEX message_meta_time ON message_meta (time_created);

CREATE VIEW message_meta_source AS
SELECT id, session_id,
	COALESCE(data ->> '$.role', '') AS role,
	COALESCE(data ->> '$.parentID', '') AS parent_id,
	COALESCE(data ->> '$.summary', 0) = 1 AS summary,
	COALESCE(data ->> '$.finish', '') AS finish,
	(data ->> '$.error') IS NOT NULL AS failed,
	COALESCE(data ->> '$.time.completed', 0) AS completed,
	time_created,
	COALESCE(data ->> '$.providerID', data ->> '$.model.providerID', '') AS provider_id,
	COALESCE(data ->> '$.modelID', data ->> '$.model.modelID', '') AS model_id,
	COALESCE(data ->> '$.agent', '') AS agent,
	COALESCE(data ->> '$.cost', 0) AS cost,
	COALESCE(data ->> '$.tokens.input', 0) AS tokens_input,
	COALESCE(data ->> '$.tokens.output', 0) AS tokens_output,
	COALESCE(data ->> '$.tokens.reasoning', 0) AS tokens_reasoning,
	COALESCE(data ->> '$.tokens.cache.read', 0) AS tokens_cache_read,
	COALESCE(data ->> '$.tokens.cache.write', 0) AS tokens_cache_write
FROM message WHERE json_valid(data);

CREATE TRIGGER message_meta_insert AFTER INSERT ON message BEGIN
	INSERT OR REPLACE INTO message_meta SELECT * FROM message_meta_source WHERE id = NEW.id;
END;
CREATE TRIGGER message_meta_update AFTER UPDATE OF data ON message BEGIN
	DELETE FROM message_meta WHERE id = NEW.id;
	INSERT INTO message_meta SELECT * FROM message_meta_source WHERE id = NEW.id;
END;

INSERT INTO message_meta SELECT * FROM message_meta_source;

-- tool_use records every tool call when its part is first stored, for
-- usage statistics.
CREATE TABLE tool_use (
	part_id      TEXT PRIMARY KEY REFERENCES part (id) ON DELETE CASCADE,
	session_id   TEXT NOT NULL,
	tool         TEXT NOT NULL,
	time_created INTEGER NOT NULL
);
CREATE INDEX tool_use_time ON tool_use (time_created);

CREATE VIEW tool_use_source AS
SELECT p.id AS part_id, p.session_id, COALESCE(p.data ->> '$.tool', '') AS tool, m.time_created
FROM part p JOIN message m ON m.id = p.message_id
WHERE CASE WHEN json_valid(p.data) THEN p.data ->> '$.type' END = 'tool';

CREATE TRIGGER tool_use_insert AFTER INSERT ON part BEGIN
	INSERT OR REPLACE INTO tool_use SELECT * FROM tool_use_source WHERE part_id = NEW.id;
END;

INSERT INTO tool_use SELECT * FROM tool_use_source;
