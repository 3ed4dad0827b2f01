/**
 * DDL of the search index (content/search.ts): migration 4. It has shipped: change the index with
 * a new migration, never here. Exported for indexes built apart from the store (a site visitor's,
 * in memory), which apply it as the store does.
 */
export const SEARCH_SCHEMA = `
  CREATE TABLE search_spaces (
    space_id TEXT PRIMARY KEY,
    revision_id TEXT NOT NULL,
    indexed_at TEXT NOT NULL
  );

  CREATE TABLE search_rows (
    rowid INTEGER PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id TEXT NOT NULL,
    page_position INTEGER NOT NULL,
    section_position INTEGER NOT NULL,
    page_title TEXT NOT NULL,
    section_title TEXT NOT NULL,
    body TEXT NOT NULL,
    page_description TEXT NOT NULL,
    page_path TEXT NOT NULL,
    section_id TEXT,
    ancestors TEXT NOT NULL
  );
  CREATE INDEX search_rows_by_space ON search_rows (space_id);

  CREATE VIRTUAL TABLE search_stem USING fts5 (
    page_title, section_title, body, page_description,
    content = 'search_rows', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE search_raw USING fts5 (
    page_title, section_title, body, page_description,
    content = 'search_rows', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
  );

  CREATE TRIGGER search_rows_insert AFTER INSERT ON search_rows BEGIN
    INSERT INTO search_stem (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
    INSERT INTO search_raw (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
  END;
  CREATE TRIGGER search_rows_delete AFTER DELETE ON search_rows BEGIN
    INSERT INTO search_stem (search_stem, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
    INSERT INTO search_raw (search_raw, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
  END;
  CREATE TRIGGER search_rows_update AFTER UPDATE ON search_rows BEGIN
    INSERT INTO search_stem (search_stem, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
    INSERT INTO search_raw (search_raw, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
    INSERT INTO search_stem (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
    INSERT INTO search_raw (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
  END;
`;

/** DDL of migration 6: changing where a row is shown (position, path, ancestors) does not reindex its text. */
export const SEARCH_UPDATE_TRIGGER = `
  DROP TRIGGER search_rows_update;
  CREATE TRIGGER search_rows_update AFTER UPDATE OF page_title, section_title, body, page_description ON search_rows BEGIN
    INSERT INTO search_stem (search_stem, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
    INSERT INTO search_raw (search_raw, rowid, page_title, section_title, body, page_description)
      VALUES ('delete', old.rowid, old.page_title, old.section_title, old.body, old.page_description);
    INSERT INTO search_stem (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
    INSERT INTO search_raw (rowid, page_title, section_title, body, page_description)
      VALUES (new.rowid, new.page_title, new.section_title, new.body, new.page_description);
  END;
`;

/**
 * Schema migrations of the platform's core, applied in order at start. Entry N moves the database
 * from `user_version` N to N + 1. Never edit an entry that has shipped: append a new one. A group
 * added since owns its tables beside its code instead (`declareTables`).
 */
export const migrations: string[] = [
  `
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    photo_url TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE api_tokens (
    token TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL
  );

  CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL,
    email_domains TEXT NOT NULL DEFAULT '[]',
    hostname TEXT UNIQUE,
    type TEXT NOT NULL DEFAULT 'business',
    use_case TEXT,
    community_type TEXT,
    default_role TEXT,
    default_content TEXT,
    sso INTEGER NOT NULL DEFAULT 0,
    ai INTEGER NOT NULL DEFAULT 1,
    invite_links INTEGER NOT NULL DEFAULT 1,
    plan TEXT NOT NULL DEFAULT 'free',
    merge_rules TEXT NOT NULL DEFAULT '{"type":"rules","rules":[]}',
    logo TEXT
  );

  CREATE TABLE members (
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT,
    disabled INTEGER NOT NULL DEFAULT 0,
    sso INTEGER NOT NULL DEFAULT 0,
    joined_at TEXT NOT NULL,
    last_seen_at TEXT,
    PRIMARY KEY (org_id, user_id)
  );
  CREATE INDEX members_by_user ON members(user_id);

  CREATE TABLE link_invites (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    role TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE agent_instructions (
    org_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
    instructions TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT
  );

  CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX teams_by_org ON teams(org_id);

  CREATE TABLE team_members (
    team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (team_id, user_id)
  );
  CREATE INDEX team_members_by_user ON team_members(user_id);

  CREATE TABLE collections (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES collections(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT,
    default_level TEXT NOT NULL DEFAULT 'inherit',
    position REAL NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX collections_by_org ON collections(org_id, parent_id);

  CREATE TABLE spaces (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES collections(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    emoji TEXT,
    visibility TEXT NOT NULL DEFAULT 'private',
    edit_mode TEXT NOT NULL DEFAULT 'live',
    merge_rules TEXT NOT NULL DEFAULT '{"type":"inherit"}',
    language TEXT,
    default_level TEXT NOT NULL DEFAULT 'inherit',
    revision TEXT NOT NULL,
    share_key TEXT NOT NULL,
    git_sync TEXT,
    visitor_auth TEXT,
    position REAL NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE INDEX spaces_by_org ON spaces(org_id, parent_id);

  -- Direct grants on a collection or a space, to a user or a team.
  CREATE TABLE content_permissions (
    content_type TEXT NOT NULL CHECK (content_type IN ('collection', 'space')),
    content_id TEXT NOT NULL,
    principal_type TEXT NOT NULL CHECK (principal_type IN ('user', 'team')),
    principal_id TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (content_type, content_id, principal_type, principal_id)
  );
  CREATE INDEX content_permissions_by_principal ON content_permissions(principal_type, principal_id);

  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // Version 2: who created each organization, the author of its first (empty) agent
  // instructions. Organizations created before get their earliest admin.
  `
  ALTER TABLE organizations ADD COLUMN created_by TEXT REFERENCES users(id) ON DELETE SET NULL;
  UPDATE organizations SET created_by = (
    SELECT m.user_id FROM members m WHERE m.org_id = organizations.id AND m.role = 'admin'
    ORDER BY m.joined_at, m.user_id LIMIT 1
  );
  `,
  // Version 3: space content. Bytes (documents, page and tree nodes, files) are stored once by
  // their SHA-256; a revision names the root node of its content (NULL: empty content), so a new
  // revision stores only the nodes that changed. Every existing space gets its first revision,
  // empty, under the id it already names.
  `
  CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    data BLOB NOT NULL
  );

  CREATE TABLE revisions (
    id TEXT PRIMARY KEY,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    parents TEXT NOT NULL DEFAULT '[]',
    root TEXT REFERENCES blobs(hash),
    git TEXT,
    merged_from TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX revisions_by_space ON revisions(space_id, created_at);

  -- A document belongs to the spaces whose content used it; its id is derived from its bytes.
  CREATE TABLE documents (
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    hash TEXT NOT NULL REFERENCES blobs(hash),
    PRIMARY KEY (space_id, id)
  );

  INSERT INTO revisions (id, space_id, type, parents, root, created_at)
    SELECT revision, id, 'edits', '[]', NULL, created_at FROM spaces;
  `,
  // Version 4: the full-text search index of page sections (content/search.ts). The platform
  // builds it for every space at start (`catchUpSearchIndex`).
  SEARCH_SCHEMA,
  // Version 5: change requests, their reviews, requested reviewers and contributors. A space
  // keeps its change request counts beside it, updated with every change request write.
  `
  CREATE TABLE change_requests (
    id TEXT PRIMARY KEY,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'open', 'archived', 'merged')),
    subject TEXT NOT NULL DEFAULT '',
    description TEXT,
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    merged_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    merged_at TEXT,
    revision TEXT NOT NULL,
    revision_initial TEXT NOT NULL,
    revision_merged_ancestor TEXT,
    revision_merged TEXT,
    cluster_id TEXT,
    UNIQUE (space_id, number)
  );
  CREATE INDEX change_requests_by_space ON change_requests(space_id, status, updated_at);

  CREATE TABLE change_request_reviews (
    id TEXT PRIMARY KEY,
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    revision TEXT NOT NULL,
    reviewer_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    status TEXT NOT NULL CHECK (status IN ('approved', 'changes-requested')),
    comment TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX change_request_reviews_by_request ON change_request_reviews(change_request_id, created_at);

  CREATE TABLE change_request_reviewers (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    requested_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    revision TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (change_request_id, user_id)
  );
  CREATE INDEX change_request_reviewers_by_user ON change_request_reviewers(user_id);

  CREATE TABLE change_request_contributors (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    action_type TEXT NOT NULL CHECK (action_type IN ('edit', 'comment')),
    count INTEGER NOT NULL DEFAULT 1,
    first_at TEXT NOT NULL,
    last_at TEXT NOT NULL,
    PRIMARY KEY (change_request_id, user_id, action_type)
  );
  CREATE INDEX change_request_contributors_by_user ON change_request_contributors(user_id);

  ALTER TABLE spaces ADD COLUMN change_requests INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE spaces ADD COLUMN change_requests_open INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE spaces ADD COLUMN change_requests_draft INTEGER NOT NULL DEFAULT 0;
  `,
  // Version 6: the search index is updated page by page (content/search.ts), and moving a row
  // (its position, path or ancestors) no longer reindexes its text.
  SEARCH_UPDATE_TRIGGER,
  // Version 7: the job queue (jobs.ts): background work that survives a restart.
  `
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL DEFAULT 1,
    run_after INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    error TEXT
  );
  CREATE INDEX jobs_pending ON jobs(state, run_after);
  CREATE INDEX jobs_by_key ON jobs(key, state);
  `,
  // Version 8: the change request a revision was written for (its edits and updates): only
  // members of the space read those; public readers read the space's own history.
  `
  ALTER TABLE revisions ADD COLUMN change_request TEXT;
  UPDATE revisions SET change_request = (
    SELECT c.id FROM change_requests c WHERE c.revision = revisions.id AND c.revision <> c.revision_initial
  );
  `,
  // Version 9: docs sites and their structure (sites/): site spaces at the top level or in
  // sections, sections at the top level or in (nested) section groups. Sections and groups share
  // one order per parent; site spaces one order per section (or the site's root).
  `
  CREATE TABLE sites (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    title TEXT NOT NULL,
    visibility TEXT NOT NULL,
    hostname TEXT UNIQUE,
    basename TEXT NOT NULL,
    proxy TEXT,
    default_level TEXT NOT NULL DEFAULT 'inherit',
    published INTEGER NOT NULL DEFAULT 0,
    adaptive_content INTEGER NOT NULL DEFAULT 0,
    default_site_space TEXT,
    default_site_section TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX sites_by_org ON sites(org_id, created_at);
  CREATE UNIQUE INDEX sites_by_basename ON sites(org_id, lower(basename));

  CREATE TABLE site_section_groups (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    localized_title TEXT,
    icon TEXT,
    draft INTEGER NOT NULL DEFAULT 0,
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX site_section_groups_by_site ON site_section_groups(site_id);

  CREATE TABLE site_sections (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    group_id TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    localized_title TEXT,
    description TEXT,
    localized_description TEXT,
    path TEXT NOT NULL,
    icon TEXT,
    condition TEXT,
    draft INTEGER NOT NULL DEFAULT 0,
    default_site_space TEXT,
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX site_sections_by_site ON site_sections(site_id);
  CREATE UNIQUE INDEX site_sections_by_path ON site_sections(site_id, lower(path));

  CREATE TABLE site_spaces (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    section_id TEXT REFERENCES site_sections(id) ON DELETE CASCADE,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    condition TEXT,
    hidden INTEGER NOT NULL DEFAULT 0,
    draft INTEGER NOT NULL DEFAULT 0,
    page_id TEXT,
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX site_spaces_by_site ON site_spaces(site_id);
  CREATE INDEX site_spaces_by_space ON site_spaces(space_id);
  CREATE UNIQUE INDEX site_spaces_by_path ON site_spaces(site_id, ifnull(section_id, ''), lower(path));
  `,
  // Version 10: who may read a published site (share links, visitor authentication) and what
  // its visitors' claims may hold (the adaptive schema).
  `
  ALTER TABLE sites ADD COLUMN auth_backend TEXT NOT NULL DEFAULT 'custom';
  ALTER TABLE sites ADD COLUMN auth_private_key TEXT;
  ALTER TABLE sites ADD COLUMN auth_public_key TEXT;
  ALTER TABLE sites ADD COLUMN auth_fallback_url TEXT;
  ALTER TABLE sites ADD COLUMN auth_logout_url TEXT;
  ALTER TABLE sites ADD COLUMN adaptive_schema TEXT;
  ALTER TABLE sites ADD COLUMN adaptive_schema_updated_at TEXT;

  CREATE TABLE site_share_links (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    key TEXT NOT NULL UNIQUE,
    name TEXT,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
  );
  CREATE INDEX site_share_links_by_site ON site_share_links(site_id, created_at);
  `,
  // Version 11: SAML identity providers of organizations (sso/saml.ts).
  `
  CREATE TABLE saml_providers (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    sso_url TEXT,
    entity_id TEXT,
    certificate TEXT,
    default_team TEXT REFERENCES teams(id) ON DELETE SET NULL,
    default_role TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX saml_providers_by_org ON saml_providers(org_id, created_at);
  `,
  // Version 12: uploaded files (fonts/store.ts) and custom fonts with a file per weight.
  `
  CREATE TABLE storage_files (
    key TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT,
    created_at TEXT NOT NULL,
    uploaded_at TEXT
  );
  CREATE INDEX storage_files_by_org ON storage_files(org_id);

  CREATE TABLE custom_fonts (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    font_family TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX custom_fonts_by_org ON custom_fonts(org_id, created_at);

  CREATE TABLE font_faces (
    font_id TEXT NOT NULL REFERENCES custom_fonts(id) ON DELETE CASCADE,
    weight INTEGER NOT NULL,
    storage_key TEXT NOT NULL REFERENCES storage_files(key),
    format TEXT NOT NULL,
    PRIMARY KEY (font_id, weight)
  );
  `,
  // Version 13: translations of spaces (translations/): one per source space and target
  // language, with the space their runs write to and their statistics; and, per translated page
  // (or reusable content), the fingerprint of the source it was translated from and the
  // translation kept, so a run translates only what changed since the last one.
  `
  CREATE TABLE translations (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    source_space TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    source_language TEXT NOT NULL,
    language TEXT NOT NULL,
    instructions TEXT NOT NULL,
    result_space TEXT REFERENCES spaces(id) ON DELETE SET NULL,
    result_revision TEXT,
    source_revision TEXT,
    runs INTEGER NOT NULL DEFAULT 0,
    total_words INTEGER NOT NULL DEFAULT 0,
    total_duration_ms INTEGER NOT NULL DEFAULT 0,
    latest_duration_ms INTEGER NOT NULL DEFAULT 0,
    latest_pages INTEGER NOT NULL DEFAULT 0,
    latest_words INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    last_error_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (source_space, language)
  );
  CREATE INDEX translations_by_org ON translations(org_id, created_at);

  CREATE TABLE translation_items (
    translation_id TEXT NOT NULL REFERENCES translations(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('page', 'reusable')),
    item_id TEXT NOT NULL,
    source_hash TEXT NOT NULL,
    result_space TEXT NOT NULL,
    translated TEXT NOT NULL,
    translated_at TEXT NOT NULL,
    PRIMARY KEY (translation_id, kind, item_id)
  );
  `,
  // Version 14: OpenAPI specifications of organizations (openapi/store.ts): the current source
  // (a URL, which may hold credentials and is never shown as given, or a text), the state of its
  // processing, and its versions (each the text a processing found, stored once per change).
  `
  CREATE TABLE openapi_specs (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug TEXT NOT NULL,
    source_url TEXT,
    source_text TEXT,
    generation INTEGER NOT NULL DEFAULT 1,
    visibility TEXT NOT NULL DEFAULT 'private',
    processing_state TEXT NOT NULL,
    last_version TEXT,
    last_processed_at TEXT,
    error_code TEXT,
    errors TEXT,
    error_count INTEGER NOT NULL DEFAULT 0,
    next_check_at INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, slug)
  );
  CREATE INDEX openapi_specs_due ON openapi_specs(next_check_at) WHERE next_check_at IS NOT NULL;

  CREATE TABLE openapi_spec_versions (
    id TEXT PRIMARY KEY,
    spec_id TEXT NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    format TEXT NOT NULL,
    hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (spec_id, seq)
  );
  `,
  // Version 15: conversations ingested into organizations, the issues found in them and the
  // clusters of those issues (conversations/store.ts). A conversation's id is the client's, unique
  // in its organization; an issue keeps its term counts (the clustering's input) and its words
  // (for cluster labels); a cluster keeps what describes it and its counts, refreshed whenever its
  // issues change. A cluster's id may change (the demo names its clusters): issues follow it.
  `
  CREATE TABLE conversations (
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    source TEXT NOT NULL,
    subject TEXT,
    url TEXT,
    attributes TEXT NOT NULL,
    metadata_created_at TEXT,
    parts TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    impact TEXT NOT NULL,
    created_at TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    processed_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (org_id, id)
  );
  CREATE INDEX conversations_by_date ON conversations(org_id, created_at);

  CREATE TABLE conversation_clusters (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    icon TEXT NOT NULL,
    summary TEXT NOT NULL,
    impact TEXT NOT NULL,
    muted INTEGER NOT NULL DEFAULT 0,
    issue_count INTEGER NOT NULL DEFAULT 0,
    conversation_count INTEGER NOT NULL DEFAULT 0,
    sources TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX conversation_clusters_by_org ON conversation_clusters(org_id, updated_at);

  CREATE TABLE conversation_issues (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    cluster_id TEXT REFERENCES conversation_clusters(id) ON UPDATE CASCADE ON DELETE SET NULL,
    title TEXT NOT NULL,
    details TEXT NOT NULL,
    impact TEXT NOT NULL,
    terms TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    ingested_at TEXT NOT NULL,
    FOREIGN KEY (org_id, conversation_id) REFERENCES conversations(org_id, id) ON DELETE CASCADE
  );
  CREATE INDEX conversation_issues_by_org ON conversation_issues(org_id, created_at);
  CREATE INDEX conversation_issues_by_conversation ON conversation_issues(org_id, conversation_id, position);
  CREATE INDEX conversation_issues_by_cluster ON conversation_issues(cluster_id, created_at);
  `,
  // Version 16: integrations (integrations/): each published integration (its current version's
  // definition, script, images and secrets encrypted at rest), its installations on
  // organizations and their space and site installations, and the events they record, each
  // with its delivery status and the trace of its delivery attempts.
  `
  CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    owner_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    runtime TEXT NOT NULL,
    visibility TEXT NOT NULL,
    target TEXT NOT NULL,
    definition TEXT NOT NULL,
    script TEXT NOT NULL,
    secrets TEXT,
    endpoint TEXT,
    verified INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX integrations_by_owner ON integrations(owner_id);

  CREATE TABLE integration_assets (
    integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (integration_id, name)
  );

  CREATE TABLE integration_installations (
    id TEXT PRIMARY KEY,
    integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    space_selection TEXT NOT NULL DEFAULT 'selected',
    site_selection TEXT NOT NULL DEFAULT 'selected',
    configuration TEXT NOT NULL DEFAULT '{}',
    external_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (integration_id, org_id)
  );
  CREATE INDEX integration_installations_by_org ON integration_installations(org_id);

  CREATE TABLE integration_space_installations (
    installation_id TEXT NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    configuration TEXT NOT NULL DEFAULT '{}',
    external_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (installation_id, space_id)
  );
  CREATE INDEX integration_space_installations_by_space ON integration_space_installations(space_id);

  CREATE TABLE integration_site_installations (
    installation_id TEXT NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    configuration TEXT NOT NULL DEFAULT '{}',
    external_ids TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (installation_id, site_id)
  );
  CREATE INDEX integration_site_installations_by_site ON integration_site_installations(site_id);

  CREATE TABLE integration_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    installation_id TEXT,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
    trace TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
  );
  CREATE INDEX integration_events_by_integration ON integration_events(integration_id, seq);
  `,
  // Version 17 created the table of a site's redirects, now a module's own (`sites/redirects.ts`,
  // `declareTables`): a database that applied it keeps the table, which the module's first
  // migration leaves as it is.
  '-- moved to sites/redirects.ts',
  // Version 18: the migrations applied of each module that owns its tables (`declareTables`).
  `
  CREATE TABLE module_schema (
    module TEXT PRIMARY KEY,
    version INTEGER NOT NULL
  );
  `,
];
