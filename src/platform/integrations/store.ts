import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { atLeast, type Access } from '../access.js';
import { sign, verify } from '../content/signing.js';
import { badRequest, conflict, forbidden, laterThan, newId, notFound, notFoundInBody, now } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { decryptValue, encryptValue } from './secrets.js';
import {
  INTEGRATION_CATEGORIES,
  INTEGRATION_SCOPES,
  INTEGRATION_TARGETS,
  INTEGRATION_VISIBILITIES,
} from '../contract/enums.js';

/**
 * Published integrations. An integration has a unique name and belongs to the organization that
 * published it; publishing again under the same name (by an admin of that organization) makes a
 * new `version` that replaces the definition, script and images. `visibility` says who reads it:
 * `public` and `unlisted` integrations anyone signed in (only public ones are listed to other
 * organizations), `private` ones the members of the owner alone. Secrets are stored encrypted
 * and never answered; icons and preview images are served at signed URLs of the platform.
 * Unpublishing deletes the integration with its installations and events.
 */

export { INTEGRATION_CATEGORIES, INTEGRATION_SCOPES, INTEGRATION_TARGETS, INTEGRATION_VISIBILITIES };
export const INTEGRATION_RUNTIMES = ['v1', 'v2'] as const;
/** Directives a `contentSecurityPolicy` object may set. */
export const CSP_DIRECTIVES = [
  'base-uri',
  'block-all-mixed-content',
  'child-src',
  'connect-src',
  'default-src',
  'font-src',
  'form-action',
  'frame-ancestors',
  'frame-src',
  'img-src',
  'manifest-src',
  'media-src',
  'navigate-to',
  'object-src',
  'plugin-types',
  'prefetch-src',
  'referrer',
  'report-to',
  'report-uri',
  'require-sri-for',
  'require-trusted-types-for',
  'sandbox',
  'script-src',
  'script-src-attr',
  'script-src-elem',
  'style-src',
  'style-src-attr',
  'style-src-elem',
  'trusted-types',
  'upgrade-insecure-requests',
  'worker-src',
] as const;

export type IntegrationScope = (typeof INTEGRATION_SCOPES)[number];
export type IntegrationTarget = (typeof INTEGRATION_TARGETS)[number];
export type IntegrationVisibility = (typeof INTEGRATION_VISIBILITIES)[number];

/** One property of a configuration schema, as published. */
export type ConfigurationProperty = { title?: string; description?: string } & (
  | { type: 'string'; default?: string; completion_url?: string; enum?: string[] }
  | { type: 'number'; default?: number }
  | { type: 'boolean'; default?: boolean }
  | { type: 'button'; callback_url: string; button_text: string }
);

/** A configuration: a schema of properties, or a component of the integration that renders it. */
export type Configuration =
  | { properties: Record<string, ConfigurationProperty>; required?: string[] }
  | { componentId: string };

export type ConfigurationLevel = 'account' | 'space' | 'site';

/** What a version of an integration declares (the `definition` column), images and secrets aside. */
export interface IntegrationDefinition {
  title: string;
  description: string;
  summary?: string;
  scopes: IntegrationScope[];
  categories: string[];
  blocks?: Array<{
    id: string;
    title: string;
    description?: string;
    icon?: string;
    urlUnfurl?: string[];
    markdown?: { codeblock: string; body: string };
  }>;
  contentSources?: Array<{
    id: string;
    title: string;
    description?: string;
    icon?: string;
    configuration: { componentId: string };
  }>;
  externalLinks: Array<{ url: string; label: string }>;
  configurations?: Partial<Record<ConfigurationLevel, Configuration>>;
  contentSecurityPolicy?: string | Record<string, string>;
  /** How many preview images were published (stored as assets `preview-0`, `preview-1`, …). */
  previewImages: number;
}

export interface IntegrationRow {
  id: string;
  name: string;
  owner_id: string;
  version: number;
  runtime: string;
  visibility: IntegrationVisibility;
  target: IntegrationTarget;
  /** JSON of `IntegrationDefinition`. */
  definition: string;
  script: string;
  /** The secrets, encrypted (`encryptValue`); never answered. */
  secrets: string | null;
  /** Where events are delivered (an https URL, or loopback in demo and test runs); null: none. */
  endpoint: string | null;
  verified: number;
  created_at: string;
  updated_at: string;
}

/** An image of a publication, decoded and of a known type. */
export interface PublishedImage {
  bytes: Buffer;
  contentType: string;
}

/** What a publication gives, checked by the route. */
export interface Publication {
  runtime: string;
  visibility: IntegrationVisibility;
  target: IntegrationTarget;
  definition: Omit<IntegrationDefinition, 'previewImages'>;
  script: string;
  icon?: PublishedImage;
  previewImages?: PublishedImage[];
  /** Replaces the stored secrets when given; the stored ones are kept otherwise. */
  secrets?: Record<string, string>;
  endpoint?: string;
}

// ---------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------

export function definitionOf(row: Pick<IntegrationRow, 'definition'>): IntegrationDefinition {
  return JSON.parse(row.definition) as IntegrationDefinition;
}

export function findIntegration(db: Db, name: string): IntegrationRow | undefined {
  return db.prepare('SELECT * FROM integrations WHERE name = ?').get(name) as IntegrationRow | undefined;
}

export function integrationById(db: Db, id: string): IntegrationRow | undefined {
  return db.prepare('SELECT * FROM integrations WHERE id = ?').get(id) as IntegrationRow | undefined;
}

/** Can the caller read the integration? Private ones: members of the owner alone (guests excluded). */
export function canRead(access: Access, row: Pick<IntegrationRow, 'owner_id' | 'visibility'>): boolean {
  return row.visibility !== 'private' || atLeast(access.orgRole(row.owner_id), 'read');
}

/** Is the caller an admin of the organization that owns the integration (its developers)? */
export function isOwnerAdmin(access: Access, row: Pick<IntegrationRow, 'owner_id'>): boolean {
  return access.orgRole(row.owner_id) === 'admin';
}

/** An integration the caller can read, else a 404 (a private one of another organization is not found). */
export function requireIntegration(db: Db, access: Access, name: string): IntegrationRow {
  const row = findIntegration(db, name);
  if (!row || !canRead(access, row)) throw notFound('Integration');
  return row;
}

/** The decrypted secrets of an integration, for its own endpoint only. */
export function secretsOf(db: Db, row: Pick<IntegrationRow, 'secrets'>): Record<string, string> {
  return row.secrets ? decryptValue<Record<string, string>>(db, row.secrets) : {};
}

export interface IntegrationFilters {
  search?: string | undefined;
  category?: string | undefined;
  blockDomain?: string | undefined;
  blocks?: boolean | undefined;
  contentSources?: boolean | undefined;
  owner?: string | undefined;
  scope?: string | undefined;
  target?: IntegrationTarget | undefined;
}

/** The host names the blocks of an integration unfurl (`https://*.example.com/x` → `example.com`). */
export function blockDomains(definition: IntegrationDefinition): string[] {
  const domains = new Set<string>();
  for (const block of definition.blocks ?? []) {
    for (const pattern of block.urlUnfurl ?? []) {
      const host = /^[a-z][a-z0-9+.-]*:\/\/([^/?#:]+)/i.exec(pattern)?.[1] ?? /^([^/?#:]+)/.exec(pattern)?.[1];
      if (host) domains.add(host.replace(/^\*\./, '').toLowerCase());
    }
  }
  return [...domains];
}

/**
 * The integrations a caller finds by listing, by name: the public ones, and every one of the
 * organizations they are a member of; then the filters.
 */
export function listIntegrations(db: Db, access: Access, filters: IntegrationFilters): IntegrationRow[] {
  const rows = db.prepare('SELECT * FROM integrations ORDER BY name').all() as IntegrationRow[];
  return rows.filter(
    (row) => (row.visibility === 'public' || atLeast(access.orgRole(row.owner_id), 'read')) && matches(row, filters),
  );
}

/**
 * The integrations available to an organization, by name: every public one, every one it owns,
 * and every one installed on it (an unlisted one, or one it was trusted with before it turned
 * private); then the filters. The caller is a member of the organization (the route checks it).
 */
export function organizationIntegrations(db: Db, orgId: string, filters: IntegrationFilters): IntegrationRow[] {
  const rows = db
    .prepare(
      `SELECT * FROM integrations i WHERE i.visibility = 'public' OR i.owner_id = ?
         OR EXISTS (SELECT 1 FROM integration_installations n WHERE n.integration_id = i.id AND n.org_id = ?)
       ORDER BY i.name`,
    )
    .all(orgId, orgId) as IntegrationRow[];
  return rows.filter((row) => matches(row, filters));
}

/**
 * The integrations installed on a space (or a site), by name: those whose installation on its
 * organization covers it (enabled on it, or on all spaces or sites) and that can be installed on
 * spaces (or sites); then the filters.
 */
export function installedIntegrations(
  db: Db,
  on: { space: { id: string; org_id: string } } | { site: { id: string; org_id: string } },
  filters: IntegrationFilters,
): IntegrationRow[] {
  const [kind, target] = 'space' in on ? (['space', on.space] as const) : (['site', on.site] as const);
  const rows = db
    .prepare(
      `SELECT i.* FROM integrations i WHERE i.target IN ('all', '${kind}') AND EXISTS (
         SELECT 1 FROM integration_installations n WHERE n.integration_id = i.id AND n.org_id = ? AND (
           n.${kind}_selection = 'all' OR EXISTS (
             SELECT 1 FROM integration_${kind}_installations s WHERE s.installation_id = n.id AND s.${kind}_id = ?)))
       ORDER BY i.name`,
    )
    .all(target.org_id, target.id) as IntegrationRow[];
  return rows.filter((row) => matches(row, filters));
}

/** Whether an integration passes the search filters of a listing (filters left out pass everything). */
function matches(row: IntegrationRow, filters: IntegrationFilters): boolean {
  const definition = definitionOf(row);
  const search = filters.search?.trim().toLowerCase();
  const domain = filters.blockDomain?.toLowerCase();
  if (search && !row.name.toLowerCase().includes(search) && !definition.title.toLowerCase().includes(search))
    return false;
  if (filters.category && !definition.categories.includes(filters.category)) return false;
  if (filters.scope && !definition.scopes.includes(filters.scope as IntegrationScope)) return false;
  if (filters.owner && row.owner_id !== filters.owner) return false;
  // An integration that can be installed on every target matches any target asked for.
  if (filters.target && row.target !== filters.target && row.target !== 'all') return false;
  const hasBlocks = (definition.blocks?.length ?? 0) > 0;
  if (filters.blocks !== undefined && hasBlocks !== filters.blocks) return false;
  const hasSources = (definition.contentSources?.length ?? 0) > 0;
  if (filters.contentSources !== undefined && hasSources !== filters.contentSources) return false;
  if (domain && !blockDomains(definition).some((host) => host === domain || host.endsWith(`.${domain}`))) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/** `http://host:port`: the root the platform's own URLs hang off. */
export function originOf(links: Pick<Links, 'api'>): string {
  return links.api.replace(/\/v1$/, '');
}

export const ASSET_ROUTE = '/integration-assets/:integrationId/:version/:name';

/** Where an image of the integration is served: a signed URL that needs no token. */
export function assetUrl(
  db: Db,
  row: Pick<IntegrationRow, 'id' | 'version'>,
  name: string,
  links: Pick<Links, 'api'>,
): string {
  const version = String(row.version);
  return `${originOf(links)}/integration-assets/${row.id}/${version}/${name}?sig=${sign(db, ['integration-asset', row.id, version, name])}`;
}

/** The image a signed asset URL names, for its current version; undefined when altered or gone. */
export function signedAsset(
  db: Db,
  request: { integrationId: string; version: string; name: string; sig: string | undefined },
): { valid: boolean; asset?: { content_type: string; bytes: Buffer } } {
  if (!verify(db, ['integration-asset', request.integrationId, request.version, request.name], request.sig))
    return { valid: false };
  const asset = db
    .prepare(
      `SELECT a.content_type, a.bytes FROM integration_assets a JOIN integrations i ON i.id = a.integration_id
       WHERE a.integration_id = ? AND a.name = ? AND i.version = ?`,
    )
    .get(request.integrationId, request.name, Number(request.version)) as
    | { content_type: string; bytes: Buffer }
    | undefined;
  return asset ? { valid: true, asset } : { valid: true };
}

export function integrationLocation(row: Pick<IntegrationRow, 'name'>, links: Pick<Links, 'api'>): string {
  return `${links.api}/integrations/${encodeURIComponent(row.name)}`;
}

/**
 * Where the integration receives what the platform sends it: its declared endpoint, or (when
 * it declares none) its location in the API, the platform handling its events itself.
 */
export function publicEndpoint(row: Pick<IntegrationRow, 'name' | 'endpoint'>, links: Pick<Links, 'api'>): string {
  return row.endpoint ?? integrationLocation(row, links);
}

// ---------------------------------------------------------------------------------------------
// Configuration schemas
// ---------------------------------------------------------------------------------------------

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>();

/** The JSON Schema an installation's configuration at `level` must meet; undefined when anything goes. */
export function configurationJsonSchema(
  definition: IntegrationDefinition,
  level: ConfigurationLevel,
): object | undefined {
  const configuration = definition.configurations?.[level];
  if (!configuration || !('properties' in configuration)) return undefined;
  const properties: Record<string, object> = {};
  for (const [name, property] of Object.entries(configuration.properties)) {
    // A button is an action of the settings screen, not a value.
    if (property.type === 'button') continue;
    properties[name] =
      property.type === 'string' && property.enum ? { type: 'string', enum: property.enum } : { type: property.type };
  }
  // Other properties may be kept: integrations store their own state (tokens of a third-party
  // service) in their configuration.
  return { type: 'object', properties, required: (configuration.required ?? []).filter((name) => name in properties) };
}

function describeConfigurationError(error: ErrorObject | undefined, field: string): string {
  if (!error) return `Invalid body field "${field}": is not a valid configuration`;
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty));
  const where = [field, ...path].join('.');
  const reason =
    error.keyword === 'required'
      ? 'is required by the integration'
      : error.keyword === 'enum'
        ? `must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`
        : error.keyword === 'type'
          ? `must be a ${(error.params as { type: string }).type}`
          : (error.message ?? 'is not valid');
  return `Invalid body field "${where}": ${reason}`;
}

/**
 * Checks a configuration against the integration's schema for `level`: a 400 naming the field
 * (`configuration.token`) when it does not match.
 */
export function checkConfiguration(
  row: IntegrationRow,
  level: ConfigurationLevel,
  configuration: Record<string, unknown>,
  field = 'configuration',
): void {
  const error = configurationProblem(row, level, configuration);
  if (error !== null) throw badRequest(describeConfigurationError(error, field));
}

/** The first problem of a configuration (null when it matches; undefined for a problem ajv could not name). */
function configurationProblem(
  row: IntegrationRow,
  level: ConfigurationLevel,
  configuration: Record<string, unknown>,
): ErrorObject | null | undefined {
  const key = `${row.id}:${row.version}:${level}`;
  let validate = validators.get(key);
  if (!validate) {
    const schema = configurationJsonSchema(definitionOf(row), level);
    if (!schema) return null;
    validate = ajv.compile(schema);
    if (validators.size > 500) validators.delete(validators.keys().next().value!);
    validators.set(key, validate);
  }
  return validate(configuration) ? null : validate.errors?.[0];
}

/** `active` when a configuration meets the schema of its level, `pending` while it lacks what is required. */
export function statusFor(
  row: IntegrationRow,
  level: ConfigurationLevel,
  configuration: Record<string, unknown>,
): 'active' | 'pending' {
  return configurationProblem(row, level, configuration) === null ? 'active' : 'pending';
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

/**
 * The organization a publication names, by id or subdomain (`hostname`), if the caller is a
 * member; else a 404, as the API describes it.
 */
export function publishingOrganization(db: Db, access: Access, reference: string): OrganizationRow {
  const org = db
    .prepare('SELECT * FROM organizations WHERE id = ? OR hostname = ? ORDER BY id = ? DESC LIMIT 1')
    .get(reference, reference, reference) as OrganizationRow | undefined;
  if (!org || access.orgRole(org.id) === undefined) throw notFoundInBody('Organization', 'organization', reference);
  if (access.orgRole(org.id) !== 'admin')
    throw forbidden('Publishing an integration needs the admin role in the organization');
  return org;
}

/**
 * Publishes `name` for `org`: creates the integration (version 1) or, when the organization
 * owns it already, a new version replacing its definition, script and images. A name taken by
 * another organization is a 409.
 */
export function publishIntegration(
  db: Db,
  org: OrganizationRow,
  name: string,
  publication: Publication,
): { row: IntegrationRow; created: boolean } {
  return db.transaction(() => {
    const existing = findIntegration(db, name);
    if (existing && existing.owner_id !== org.id)
      throw conflict(`The integration name "${name}" is taken by another organization`);
    const definition: IntegrationDefinition = {
      ...publication.definition,
      previewImages: publication.previewImages?.length ?? 0,
    };
    const secrets =
      publication.secrets !== undefined ? encryptValue(db, publication.secrets) : (existing?.secrets ?? null);
    const at = now();
    let id: string;
    if (existing) {
      id = existing.id;
      db.prepare(
        `UPDATE integrations SET version = version + 1, runtime = ?, visibility = ?, target = ?, definition = ?, script = ?, secrets = ?, endpoint = ?,
           updated_at = ? WHERE id = ?`,
      ).run(
        publication.runtime,
        publication.visibility,
        publication.target,
        JSON.stringify(definition),
        publication.script,
        secrets,
        publication.endpoint ?? null,
        laterThan(existing.updated_at),
        id,
      );
      db.prepare('DELETE FROM integration_assets WHERE integration_id = ?').run(id);
    } else {
      id = newId();
      db.prepare(
        `INSERT INTO integrations (id, name, owner_id, version, runtime, visibility, target, definition, script, secrets, endpoint, verified, created_at, updated_at)
         VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
      ).run(
        id,
        name,
        org.id,
        publication.runtime,
        publication.visibility,
        publication.target,
        JSON.stringify(definition),
        publication.script,
        secrets,
        publication.endpoint ?? null,
        at,
        at,
      );
    }
    const insertAsset = db.prepare(
      'INSERT INTO integration_assets (integration_id, name, content_type, bytes) VALUES (?, ?, ?, ?)',
    );
    if (publication.icon) insertAsset.run(id, 'icon', publication.icon.contentType, publication.icon.bytes);
    publication.previewImages?.forEach((image, index) => {
      insertAsset.run(id, `preview-${index}`, image.contentType, image.bytes);
    });
    return { row: integrationById(db, id)!, created: !existing };
  })();
}

/** Unpublishes an integration: it goes with its installations and events. False when there was none. */
export function unpublishIntegration(db: Db, row: IntegrationRow | undefined): boolean {
  if (!row) return false;
  return db.prepare('DELETE FROM integrations WHERE id = ?').run(row.id).changes > 0;
}

/** Whether an integration has stored an asset of that name (its icon, a preview image). */
export function hasAsset(db: Db, integrationId: string, name: string): boolean {
  return (
    db.prepare('SELECT 1 FROM integration_assets WHERE integration_id = ? AND name = ?').get(integrationId, name) !==
    undefined
  );
}
