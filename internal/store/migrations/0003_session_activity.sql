-- Sessions are listed by last activity (time_updated, newest first, then
-- id); codeloop --continue takes the first root session of a project.
CREATE INDEX session_activity ON session (project_id, parent_id, time_updated DESC, id);
