import { auditTables } from './triggers.js';

/**
 * The tables whose writes are audit events: those holding what an organization's people make and
 * change through the API (the organization, its members, teams, content and its permissions, change
 * requests and reviews, sites and their parts, share links, integrations' installations, OpenAPI
 * specifications, translations, comments, module tables of the same kind). Not audited: what the
 * platform derives or keeps for itself (revisions, documents, blobs, search rows, jobs, integration
 * events and their deliveries, ingested conversations, translation and OpenAPI processing output,
 * counters, `last_seen_at`, contributors) and what belongs to no organization (users, API tokens).
 */

const spaceOrg = (column: string) => `(SELECT org_id FROM spaces WHERE id = ${column})`;
const siteOrg = '(SELECT org_id FROM sites WHERE id = $.site_id)';
const changeRequestOrg = (column: string) =>
  `(SELECT s.org_id FROM change_requests c JOIN spaces s ON s.id = c.space_id WHERE c.id = ${column})`;
const userName = (column: string) => `(SELECT display_name FROM users WHERE id = ${column})`;
const updated = (target: string, label: string, columns: readonly string[]) => ({
  action: `${target}.updated`,
  label,
  columns,
});

auditTables([
  {
    table: 'organizations',
    target: 'organization',
    label: '$.title',
    org: '$.id',
    updates: [
      updated('organization', 'Organization settings updated', [
        'title',
        'email_domains',
        'hostname',
        'type',
        'use_case',
        'community_type',
        'default_role',
        'default_content',
        'sso',
        'ai',
        'invite_links',
        'plan',
        'merge_rules',
        'logo',
      ]),
    ],
  },
  {
    table: 'agent_instructions',
    target: 'organization',
    id: '$.org_id',
    org: '$.org_id',
    created: ['organization.agent_instructions_updated', 'Agent instructions updated'],
    deleted: false,
    updates: [
      {
        action: 'organization.agent_instructions_updated',
        label: 'Agent instructions updated',
        columns: ['instructions'],
      },
    ],
  },
  {
    table: 'members',
    target: 'member',
    id: '$.user_id',
    label: userName('$.user_id'),
    org: '$.org_id',
    payload: "'role', $.role",
    created: ['member.added', 'Member added'],
    deleted: ['member.removed', 'Member removed'],
    updates: [
      { action: 'member.role_updated', label: 'Member role updated', columns: ['role'] },
      { action: 'member.disabled', label: 'Member disabled', columns: ['disabled'], when: 'NEW.disabled = 1' },
      { action: 'member.enabled', label: 'Member enabled', columns: ['disabled'], when: 'NEW.disabled = 0' },
    ],
  },
  {
    table: 'link_invites',
    target: 'invite',
    org: '$.org_id',
    payload: "'role', $.role",
    updates: [
      { action: 'invite.role_updated', label: 'Invite link role updated', columns: ['role'] },
      {
        action: 'invite.revoked',
        label: 'Invite link revoked',
        columns: ['revoked_at'],
        when: 'NEW.revoked_at IS NOT NULL',
      },
    ],
  },
  {
    table: 'teams',
    target: 'team',
    label: '$.title',
    org: '$.org_id',
    updates: [updated('team', 'Team updated', ['title'])],
  },
  {
    table: 'team_members',
    target: 'team',
    id: '$.team_id',
    label: '(SELECT title FROM teams WHERE id = $.team_id)',
    org: '(SELECT org_id FROM teams WHERE id = $.team_id)',
    payload: "'userId', $.user_id, 'role', $.role",
    created: ['team.member_added', 'Team member added'],
    deleted: ['team.member_removed', 'Team member removed'],
    updates: [{ action: 'team.member_role_updated', label: 'Team member role updated', columns: ['role'] }],
  },
  {
    table: 'collections',
    target: 'collection',
    label: '$.title',
    org: '$.org_id',
    updates: [updated('collection', 'Collection updated', ['title', 'description', 'default_level', 'parent_id'])],
  },
  {
    table: 'spaces',
    target: 'space',
    label: '$.title',
    org: '$.org_id',
    updates: [
      {
        ...updated('space', 'Space updated', [
          'title',
          'emoji',
          'visibility',
          'edit_mode',
          'merge_rules',
          'language',
          'default_level',
          'parent_id',
          'git_sync',
          'visitor_auth',
        ]),
        // A space in the trash is not edited: what moves it there (its collection deleted, which also takes it
        // to the root) is recorded as `space.trashed` alone.
        when: 'OLD.deleted_at IS NULL AND NEW.deleted_at IS NULL',
      },
      { action: 'space.content_updated', label: 'Space content updated', columns: ['revision'] },
      {
        action: 'space.trashed',
        label: 'Space moved to trash',
        columns: ['deleted_at'],
        when: 'NEW.deleted_at IS NOT NULL',
      },
      { action: 'space.restored', label: 'Space restored', columns: ['deleted_at'], when: 'NEW.deleted_at IS NULL' },
    ],
  },
  {
    table: 'content_permissions',
    target: 'permission',
    id: '$.content_id',
    label:
      "(CASE $.content_type WHEN 'space' THEN (SELECT title FROM spaces WHERE id = $.content_id) ELSE (SELECT title FROM collections WHERE id = $.content_id) END)",
    org: `(CASE $.content_type WHEN 'space' THEN ${spaceOrg('$.content_id')} ELSE (SELECT org_id FROM collections WHERE id = $.content_id) END)`,
    payload:
      "'contentType', $.content_type, 'principalType', $.principal_type, 'principalId', $.principal_id, 'role', $.role",
    created: ['permission.granted', 'Permission granted'],
    deleted: ['permission.revoked', 'Permission revoked'],
    updates: [{ action: 'permission.updated', label: 'Permission updated', columns: ['role'] }],
  },
  {
    table: 'change_requests',
    target: 'change_request',
    label: '$.subject',
    org: spaceOrg('$.space_id'),
    payload: "'spaceId', $.space_id, 'number', $.number, 'status', $.status",
    updates: [
      updated('change_request', 'Change request updated', ['subject', 'description']),
      { action: 'change_request.status_updated', label: 'Change request status updated', columns: ['status'] },
      { action: 'change_request.content_updated', label: 'Change request content updated', columns: ['revision'] },
    ],
  },
  {
    table: 'change_request_reviews',
    target: 'change_request',
    id: '$.change_request_id',
    label: '(SELECT subject FROM change_requests WHERE id = $.change_request_id)',
    org: changeRequestOrg('$.change_request_id'),
    payload: "'reviewId', $.id, 'reviewerId', $.reviewer_id, 'status', $.status",
    created: ['change_request.reviewed', 'Change request reviewed'],
    deleted: false,
    updates: [
      {
        action: 'change_request.review_updated',
        label: 'Change request review updated',
        columns: ['status', 'comment'],
      },
    ],
  },
  {
    table: 'change_request_reviewers',
    target: 'change_request',
    id: '$.change_request_id',
    label: '(SELECT subject FROM change_requests WHERE id = $.change_request_id)',
    org: changeRequestOrg('$.change_request_id'),
    payload: "'userId', $.user_id",
    created: ['change_request.reviewer_requested', 'Change request reviewer requested'],
    deleted: ['change_request.reviewer_removed', 'Change request reviewer removed'],
  },
  {
    table: 'sites',
    target: 'site',
    label: '$.title',
    org: '$.org_id',
    updates: [
      updated('site', 'Site updated', [
        'title',
        'type',
        'visibility',
        'hostname',
        'basename',
        'proxy',
        'default_level',
        'adaptive_content',
        'default_site_space',
        'default_site_section',
        'auth_backend',
        'auth_fallback_url',
        'auth_logout_url',
        'adaptive_schema',
      ]),
      { action: 'site.published', label: 'Site published', columns: ['published'], when: 'NEW.published = 1' },
      { action: 'site.unpublished', label: 'Site unpublished', columns: ['published'], when: 'NEW.published = 0' },
    ],
  },
  {
    table: 'site_section_groups',
    target: 'site_section_group',
    label: '$.title',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    updates: [updated('site_section_group', 'Site section group updated', ['title', 'icon', 'draft', 'parent_id'])],
  },
  {
    table: 'site_sections',
    target: 'site_section',
    label: '$.title',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    updates: [
      updated('site_section', 'Site section updated', [
        'title',
        'description',
        'path',
        'icon',
        'condition',
        'draft',
        'group_id',
      ]),
    ],
  },
  {
    table: 'site_spaces',
    target: 'site_space',
    label: '(SELECT title FROM spaces WHERE id = $.space_id)',
    org: siteOrg,
    payload: "'siteId', $.site_id, 'spaceId', $.space_id",
    updates: [
      updated('site_space', 'Site space updated', ['path', 'condition', 'hidden', 'draft', 'section_id', 'space_id']),
    ],
  },
  {
    table: 'site_share_links',
    target: 'site_share_link',
    label: '$.name',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    updates: [updated('site_share_link', 'Site share link updated', ['name', 'active'])],
  },
  {
    table: 'saml_providers',
    target: 'saml_provider',
    label: '$.label',
    org: '$.org_id',
    updates: [
      updated('saml_provider', 'SAML provider updated', [
        'label',
        'sso_url',
        'entity_id',
        'certificate',
        'default_team',
        'default_role',
      ]),
    ],
  },
  {
    table: 'custom_fonts',
    target: 'custom_font',
    label: '$.font_family',
    org: '$.org_id',
    updates: [updated('custom_font', 'Custom font updated', ['font_family'])],
  },
  {
    table: 'translations',
    target: 'translation',
    label: '$.language',
    org: '$.org_id',
    payload: "'sourceSpaceId', $.source_space",
    updates: [updated('translation', 'Translation updated', ['language', 'instructions'])],
  },
  {
    table: 'openapi_specs',
    target: 'openapi_spec',
    label: '$.slug',
    org: '$.org_id',
    // The source URL may hold credentials: only which fields changed is recorded.
    updates: [updated('openapi_spec', 'OpenAPI specification updated', ['source_url', 'source_text', 'visibility'])],
  },
  {
    table: 'integrations',
    target: 'integration',
    label: '$.name',
    org: '$.owner_id',
    updates: [{ action: 'integration.published', label: 'Integration version published', columns: ['version'] }],
  },
  {
    table: 'integration_installations',
    target: 'integration_installation',
    label: '(SELECT name FROM integrations WHERE id = $.integration_id)',
    org: '$.org_id',
    payload: "'integrationId', $.integration_id",
    created: ['integration_installation.created', 'Integration installed'],
    deleted: ['integration_installation.deleted', 'Integration uninstalled'],
    updates: [
      updated('integration_installation', 'Integration installation updated', [
        'status',
        'space_selection',
        'site_selection',
        'configuration',
      ]),
    ],
  },
  {
    table: 'integration_space_installations',
    target: 'integration_installation',
    id: '$.installation_id',
    org: '(SELECT org_id FROM integration_installations WHERE id = $.installation_id)',
    payload: "'spaceId', $.space_id",
    created: ['integration_installation.space_added', 'Integration installed on a space'],
    deleted: ['integration_installation.space_removed', 'Integration removed from a space'],
    updates: [
      {
        action: 'integration_installation.space_updated',
        label: 'Integration space installation updated',
        columns: ['status', 'configuration'],
      },
    ],
  },
  {
    table: 'integration_site_installations',
    target: 'integration_installation',
    id: '$.installation_id',
    org: '(SELECT org_id FROM integration_installations WHERE id = $.installation_id)',
    payload: "'siteId', $.site_id",
    created: ['integration_installation.site_added', 'Integration installed on a site'],
    deleted: ['integration_installation.site_removed', 'Integration removed from a site'],
    updates: [
      {
        action: 'integration_installation.site_updated',
        label: 'Integration site installation updated',
        columns: ['status', 'configuration'],
      },
    ],
  },
  // Module tables (declareTables).
  {
    table: 'site_redirects',
    target: 'site_redirect',
    label: '$.source',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    updates: [
      updated('site_redirect', 'Site redirect updated', [
        'source',
        'draft',
        'capture_wildcard',
        'permanent',
        'destination',
      ]),
    ],
  },
  {
    table: 'site_external_links',
    target: 'site_external_link',
    label: '$.title',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    updates: [
      updated('site_external_link', 'Site external link updated', [
        'title',
        'description',
        'icon',
        'url',
        'condition',
        'draft',
        'group_id',
      ]),
    ],
  },
  {
    table: 'site_customizations',
    target: 'site',
    id: '$.site_id',
    label: '(SELECT title FROM sites WHERE id = $.site_id)',
    org: siteOrg,
    created: ['site.customization_updated', 'Site customization updated'],
    deleted: false,
    updates: [{ action: 'site.customization_updated', label: 'Site customization updated', columns: ['settings'] }],
  },
  {
    table: 'site_space_customizations',
    target: 'site_space',
    id: '$.site_space_id',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    created: ['site_space.customization_updated', 'Site space customization updated'],
    deleted: false,
    updates: [
      { action: 'site_space.customization_updated', label: 'Site space customization updated', columns: ['overrides'] },
    ],
  },
  {
    table: 'custom_hostnames',
    target: 'custom_hostname',
    id: '$.hostname',
    label: '$.hostname',
    org: siteOrg,
    payload: "'siteId', $.site_id",
    // Its status is the checks' bookkeeping.
    updates: [],
  },
  {
    table: 'glossary_entries',
    target: 'glossary_entry',
    org: '$.org_id',
    updates: [updated('glossary_entry', 'Glossary entry updated', ['translations'])],
  },
  {
    table: 'comments',
    target: 'comment',
    org: spaceOrg('$.space_id'),
    payload: "'spaceId', $.space_id, 'changeRequestId', $.change_request_id",
    updates: [
      updated('comment', 'Comment edited', ['body']),
      {
        action: 'comment.resolved',
        label: 'Comment resolved',
        columns: ['resolved_at'],
        when: 'NEW.resolved_at IS NOT NULL',
      },
      {
        action: 'comment.reopened',
        label: 'Comment reopened',
        columns: ['resolved_at'],
        when: 'NEW.resolved_at IS NULL',
      },
    ],
  },
  {
    table: 'comment_replies',
    target: 'comment',
    id: '$.comment_id',
    org: `(SELECT s.org_id FROM comments c JOIN spaces s ON s.id = c.space_id WHERE c.id = $.comment_id)`,
    payload: "'replyId', $.id",
    created: ['comment.replied', 'Comment replied to'],
    deleted: ['comment.reply_deleted', 'Comment reply deleted'],
    updates: [{ action: 'comment.reply_edited', label: 'Comment reply edited', columns: ['body'] }],
  },
  {
    table: 'integration_development_modes',
    target: 'integration',
    id: '$.integration_id',
    label: '(SELECT name FROM integrations WHERE id = $.integration_id)',
    org: '(SELECT owner_id FROM integrations WHERE id = $.integration_id)',
    created: ['integration.development_started', 'Integration development mode turned on'],
    deleted: ['integration.development_stopped', 'Integration development mode turned off'],
    updates: [
      {
        action: 'integration.development_updated',
        label: 'Integration development mode updated',
        columns: ['tunnel_url', 'all_organizations'],
      },
    ],
  },
  {
    // Grants on a site: the same actions as on a space or a collection, told apart by `contentType`.
    table: 'site_permissions',
    target: 'permission',
    id: '$.site_id',
    label: '(SELECT title FROM sites WHERE id = $.site_id)',
    org: siteOrg,
    payload:
      "'contentType', 'site', 'principalType', CASE WHEN $.user_id IS NULL THEN 'team' ELSE 'user' END, 'principalId', coalesce($.user_id, $.team_id), 'role', $.role",
    created: ['permission.granted', 'Permission granted'],
    deleted: ['permission.revoked', 'Permission revoked'],
    updates: [{ action: 'permission.updated', label: 'Permission updated', columns: ['role'] }],
  },
  {
    // A run's source is not in the payload: a website's address is the caller's to see, not every admin's.
    table: 'import_runs',
    target: 'import_run',
    org: '$.org_id',
    payload: "'spaceId', $.space_id, 'status', $.status",
    created: ['import_run.started', 'Content import started'],
    deleted: false,
    updates: [{ action: 'import_run.status_updated', label: 'Content import status updated', columns: ['status'] }],
  },
]);
