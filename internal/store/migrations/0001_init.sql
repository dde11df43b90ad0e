CREATE TABLE project (
	id           TEXT PRIMARY KEY,
	worktree     TEXT NOT NULL,
	vcs          TEXT NOT NULL DEFAULT '',
	time_created INTEGER NOT NULL,
	time_updated INTEGER NOT NULL
);

CREATE TABLE session (
	id           TEXT PRIMARY KEY,
	project_id   TEXT NOT NULL DEFAULT '',
	parent_id    TEXT NOT NULL DEFAULT '',
	directory    TEXT NOT NULL DEFAULT '',
	title        TEXT NOT NULL DEFAULT '',
	time_created INTEGER NOT NULL,
	time_updated INTEGER NOT NULL,
	data         TEXT NOT NULL
);
CREATE INDEX session_project ON session (project_id, id);
CREATE INDEX session_parent ON session (parent_id, id);

CREATE TABLE message (
	id           TEXT PRIMARY KEY,
	session_id   TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
	time_created INTEGER NOT NULL,
	data         TEXT NOT NULL
);
CREATE INDEX message_session ON message (session_id, id);

CREATE TABLE part (
	id         TEXT PRIMARY KEY,
	message_id TEXT NOT NULL REFERENCES message (id) ON DELETE CASCADE,
	session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
	data       TEXT NOT NULL
);
CREATE INDEX part_message ON part (message_id, id);
CREATE INDEX part_session ON part (session_id, message_id, id);

CREATE TABLE todo (
	session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
	position   INTEGER NOT NULL,
	id         TEXT NOT NULL,
	content    TEXT NOT NULL,
	status     TEXT NOT NULL,
	priority   TEXT NOT NULL,
	PRIMARY KEY (session_id, position)
);

CREATE TABLE permission (
	id           TEXT PRIMARY KEY,
	scope        TEXT NOT NULL CHECK (scope IN ('session', 'project', 'global')),
	scope_id     TEXT NOT NULL DEFAULT '',
	permission   TEXT NOT NULL,
	pattern      TEXT NOT NULL,
	origin       TEXT NOT NULL DEFAULT '',
	time_created INTEGER NOT NULL,
	UNIQUE (scope, scope_id, permission, pattern)
);
