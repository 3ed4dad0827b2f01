import type { Access } from '../access.js';
import { conflict, json, laterThan, newId, notFound, now } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { recordEvent } from './events.js';
import { checkConfiguration, isOwnerAdmin, statusFor, type IntegrationRow } from './store.js';

/**
 * Installations of integrations. An integration is installed on an organization (the
 * account-level installation, with its configuration), then enabled on spaces and sites of that
 * organization, each with a configuration of its own. An installation whose `space_selection`
 * (or `site_selection`) is `all` covers every space (or site) of the organization; those not
 * enabled one by one have an empty configuration. A configuration is checked against the
 * integration's schema for its level (`configurations.account`, `.space`, `.site`); an
 * installation stays `pending` while its configuration lacks a property the schema requires.
 * Every change records its event (`installation_setup`, `space_installation_setup`,
 * `site_installation_deleted`, …) in its transaction.
 */

export type InstallationStatus = 'active' | 'pending' | 'paused';
export type Selection = 'all' | 'selected';

export interface InstallationRow {
  id: string;
  integration_id: string;
  org_id: string;
  status: InstallationStatus;
  space_selection: Selection;
  site_selection: Selection;
  configuration: string;
  external_ids: string;
  created_at: string;
  updated_at: string;
}

/** An installation on one space or site (`target_id`). */
export interface ContentInstallationRow {
  installation_id: string;
  target_id: string;
  status: InstallationStatus;
  configuration: string;
  external_ids: string;
  created_at: string;
  updated_at: string;
}

export type ContentKind = 'space' | 'site';

export const KINDS = {
  space: {
    table: 'integration_space_installations',
    column: 'space_id',
    selection: 'space_selection',
    setup: 'space_installation_setup',
    deleted: 'space_installation_deleted',
    idField: 'spaceId',
    path: 'spaces',
  },
  site: {
    table: 'integration_site_installations',
    column: 'site_id',
    selection: 'site_selection',
    setup: 'site_installation_setup',
    deleted: 'site_installation_deleted',
    idField: 'siteId',
    path: 'sites',
  },
} as const;

// ---------------------------------------------------------------------------------------------
// Installations on organizations
// ---------------------------------------------------------------------------------------------

export function findInstallation(
  db: Db,
  integration: Pick<IntegrationRow, 'id'>,
  installationId: string,
): InstallationRow | undefined {
  return db
    .prepare('SELECT * FROM integration_installations WHERE id = ? AND integration_id = ?')
    .get(installationId, integration.id) as InstallationRow | undefined;
}

/** Admins of the installing organization, and of the integration's owner, see an installation. */
export function canSeeInstallation(
  access: Access,
  integration: IntegrationRow,
  installation: Pick<InstallationRow, 'org_id'>,
): boolean {
  return access.orgRole(installation.org_id) === 'admin' || isOwnerAdmin(access, integration);
}

/** An installation the caller may see, else a 404. */
export function requireInstallation(
  db: Db,
  access: Access,
  integration: IntegrationRow,
  installationId: string,
): InstallationRow {
  const row = findInstallation(db, integration, installationId);
  if (!row || !canSeeInstallation(access, integration, row)) throw notFound('Integration installation');
  return row;
}

/** The installations of an integration the caller may see (all of them for its owner's admins). */
export function visibleInstallations(
  db: Db,
  access: Access,
  integration: IntegrationRow,
  externalId?: string,
): InstallationRow[] {
  const rows = db
    .prepare('SELECT * FROM integration_installations WHERE integration_id = ? ORDER BY created_at, id')
    .all(integration.id) as InstallationRow[];
  return rows.filter(
    (row) =>
      canSeeInstallation(access, integration, row) &&
      (externalId === undefined || json.parse<string[]>(row.external_ids, []).includes(externalId)),
  );
}

/** Installs an integration on an organization (`installation_setup`); a second installation is a 409. */
export function install(db: Db, integration: IntegrationRow, org: OrganizationRow): InstallationRow {
  return db.transaction(() => {
    const taken = db
      .prepare('SELECT 1 FROM integration_installations WHERE integration_id = ? AND org_id = ?')
      .get(integration.id, org.id);
    if (taken) throw conflict(`The integration is already installed on the organization ${org.id}`);
    const id = newId();
    const at = now();
    const status = statusFor(integration, 'account', {});
    db.prepare(
      `INSERT INTO integration_installations (id, integration_id, org_id, status, space_selection, site_selection, configuration, external_ids, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'selected', 'selected', '{}', '[]', ?, ?)`,
    ).run(id, integration.id, org.id, status, at, at);
    recordEvent(db, integration, { type: 'installation_setup', installationId: id, status });
    return findInstallation(db, integration, id)!;
  })();
}

export interface InstallationChanges {
  configuration?: Record<string, unknown> | undefined;
  externalIds?: string[] | undefined;
  space_selection?: Selection | undefined;
  site_selection?: Selection | undefined;
}

/**
 * Updates an installation (its configuration checked against the account schema), and records
 * `installation_setup` with its previous status and configuration.
 */
export function updateInstallation(
  db: Db,
  integration: IntegrationRow,
  row: InstallationRow,
  changes: InstallationChanges,
): InstallationRow {
  if (changes.configuration !== undefined) checkConfiguration(integration, 'account', changes.configuration);
  return db.transaction(() => {
    const previous = json.parse<Record<string, unknown>>(row.configuration, {});
    const configuration = changes.configuration ?? previous;
    const status: InstallationStatus =
      row.status === 'paused' ? 'paused' : statusFor(integration, 'account', configuration);
    db.prepare(
      `UPDATE integration_installations SET status = ?, configuration = ?, external_ids = ?, space_selection = ?, site_selection = ?, updated_at = ?
       WHERE id = ?`,
    ).run(
      status,
      JSON.stringify(configuration),
      changes.externalIds !== undefined ? JSON.stringify(changes.externalIds) : row.external_ids,
      changes.space_selection ?? row.space_selection,
      changes.site_selection ?? row.site_selection,
      laterThan(row.updated_at),
      row.id,
    );
    recordEvent(db, integration, {
      type: 'installation_setup',
      installationId: row.id,
      status,
      previous: { status: row.status, configuration: previous },
    });
    return findInstallation(db, integration, row.id)!;
  })();
}

/** Uninstalls (`installation_deleted`, with the configuration it had); its space and site installations go with it. */
export function uninstall(db: Db, integration: IntegrationRow, row: InstallationRow | undefined): boolean {
  if (!row) return false;
  return db.transaction(() => {
    db.prepare('DELETE FROM integration_installations WHERE id = ?').run(row.id);
    recordEvent(db, integration, {
      type: 'installation_deleted',
      installationId: row.id,
      previous: { configuration: json.parse(row.configuration, {}) },
    });
    return true;
  })();
}

// ---------------------------------------------------------------------------------------------
// Installations on spaces and sites
// ---------------------------------------------------------------------------------------------

function contentRow(
  db: Db,
  kind: ContentKind,
  installationId: string,
  targetId: string,
): ContentInstallationRow | undefined {
  const { table, column } = KINDS[kind];
  return db
    .prepare(`SELECT *, ${column} AS target_id FROM ${table} WHERE installation_id = ? AND ${column} = ?`)
    .get(installationId, targetId) as ContentInstallationRow | undefined;
}

/** A space or site an installation covers, with its own installation row when it was enabled one by one. */
export interface CoveredTarget {
  targetId: string;
  row?: ContentInstallationRow;
}

/** The spaces (or sites) an installation covers, in the order of their creation (spaces in the bin left out). */
export function coveredTargets(db: Db, installation: InstallationRow, kind: ContentKind): CoveredTarget[] {
  const { table, column } = KINDS[kind];
  const rows = db
    .prepare(`SELECT *, ${column} AS target_id FROM ${table} WHERE installation_id = ?`)
    .all(installation.id) as ContentInstallationRow[];
  const byTarget = new Map(rows.map((row) => [row.target_id, row]));
  const all = installation[KINDS[kind].selection] === 'all';
  const targets = (
    kind === 'space'
      ? db.prepare('SELECT id FROM spaces WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at, id')
      : db.prepare('SELECT id FROM sites WHERE org_id = ? ORDER BY created_at, id')
  )
    .pluck(true)
    .all(installation.org_id) as string[];
  return targets
    .filter((id) => all || byTarget.has(id))
    .map((id) => ({ targetId: id, ...(byTarget.has(id) ? { row: byTarget.get(id)! } : {}) }));
}

/** One space or site the installation covers, else undefined. */
export function coveredTarget(
  db: Db,
  installation: InstallationRow,
  kind: ContentKind,
  targetId: string,
): CoveredTarget | undefined {
  return coveredTargets(db, installation, kind).find((target) => target.targetId === targetId);
}

/**
 * Enables an installation on a space or site of its organization (`…_installation_setup`); a
 * space or site where it is enabled already is a 409.
 */
export function installOn(
  db: Db,
  integration: IntegrationRow,
  installation: InstallationRow,
  kind: ContentKind,
  targetId: string,
): CoveredTarget {
  const { table, column, setup, idField } = KINDS[kind];
  return db.transaction(() => {
    if (contentRow(db, kind, installation.id, targetId))
      throw conflict(`The integration is already installed on this ${kind}`);
    const at = now();
    const status = statusFor(integration, kind, {});
    db.prepare(
      `INSERT INTO ${table} (installation_id, ${column}, status, configuration, external_ids, created_at, updated_at) VALUES (?, ?, ?, '{}', '[]', ?, ?)`,
    ).run(installation.id, targetId, status, at, at);
    recordEvent(db, integration, { type: setup, installationId: installation.id, [idField]: targetId, status });
    return { targetId, row: contentRow(db, kind, installation.id, targetId)! };
  })();
}

/**
 * Updates the configuration or external ids of an installation on a space or site (one covered
 * by an installation on all of them gets its own row), and records `…_installation_setup` with
 * the previous status and configuration; a 404 when the installation does not cover it.
 */
export function updateOn(
  db: Db,
  integration: IntegrationRow,
  installation: InstallationRow,
  kind: ContentKind,
  targetId: string,
  changes: { configuration?: Record<string, unknown> | undefined; externalIds?: string[] | undefined },
): CoveredTarget {
  const { table, column, setup, idField } = KINDS[kind];
  if (changes.configuration !== undefined) checkConfiguration(integration, kind, changes.configuration);
  return db.transaction(() => {
    const target = coveredTarget(db, installation, kind, targetId);
    if (!target) throw notFound(`Integration ${kind} installation`);
    const previousStatus = target.row?.status ?? installation.status;
    const previous = json.parse<Record<string, unknown>>(target.row?.configuration, {});
    const configuration = changes.configuration ?? previous;
    const status = statusFor(integration, kind, configuration);
    const externalIds =
      changes.externalIds !== undefined ? JSON.stringify(changes.externalIds) : (target.row?.external_ids ?? '[]');
    const at = target.row ? laterThan(target.row.updated_at) : now();
    db.prepare(
      `INSERT INTO ${table} (installation_id, ${column}, status, configuration, external_ids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (installation_id, ${column}) DO UPDATE SET status = excluded.status, configuration = excluded.configuration,
         external_ids = excluded.external_ids, updated_at = excluded.updated_at`,
    ).run(installation.id, targetId, status, JSON.stringify(configuration), externalIds, at, at);
    recordEvent(db, integration, {
      type: setup,
      installationId: installation.id,
      [idField]: targetId,
      status,
      previous: { status: previousStatus, configuration: previous },
    });
    return { targetId, row: contentRow(db, kind, installation.id, targetId)! };
  })();
}

/**
 * Removes the installation from a space or site (`…_installation_deleted`); false when it was
 * not enabled there. With a selection of `all`, the space or site stays covered, with an empty
 * configuration: set the selection to `selected` to leave it out.
 */
export function uninstallFrom(
  db: Db,
  integration: IntegrationRow,
  installation: InstallationRow,
  kind: ContentKind,
  targetId: string,
): boolean {
  const { table, column, deleted, idField } = KINDS[kind];
  return db.transaction(() => {
    const row = contentRow(db, kind, installation.id, targetId);
    if (!row) return false;
    db.prepare(`DELETE FROM ${table} WHERE installation_id = ? AND ${column} = ?`).run(installation.id, targetId);
    recordEvent(db, integration, {
      type: deleted,
      installationId: installation.id,
      [idField]: targetId,
      previous: { configuration: json.parse(row.configuration, {}) },
    });
    return true;
  })();
}
