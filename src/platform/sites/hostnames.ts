import type { FastifyInstance } from 'fastify';
import { badRequest, conflict, notFound, now, sendDeleted } from '../http.js';
import type { JobQueue } from '../jobs.js';
import { isLoopbackName, type RecordResolver } from '../outbound.js';
import type { OrganizationRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { touchSite, type SiteRow } from './store.js';
import { requireSiteRole } from './permissions.js';

/**
 * Custom hostnames and subdomains. A site's custom hostname (set with the site, `hostname`) has a
 * state: the description's `CustomHostnameStatus`, or none while it is pending (a check queued or
 * running, or one that got no answer from DNS). A new hostname and a revalidation queue a check
 * (a job, `custom-hostname-check`) that reads the name's records through the outbound guard's
 * resolver: a CNAME to the platform's hosting target and CAA records that let its certificate
 * authority issue make it `live` (active); otherwise `dns_no_cname`, `dns_wrong_cname` or
 * `dns_wrong_caa`; a name that can never be public (`*.localhost`, `*.invalid`) is
 * `invalid_domain`; a check that failed unexpectedly `internal_error`. A DNS server that does not
 * answer leaves the hostname pending: offline, nothing is claimed active. An organization's
 * subdomain is its `hostname`, active as long as it has it.
 */

declareTables('custom-hostnames', [
  `
  CREATE TABLE IF NOT EXISTS custom_hostnames (
    hostname TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    status TEXT,
    checked_at TEXT
  );
  `,
]);

/** The description's statuses a check ends in (`CustomHostnameStatus`); none while pending. */
export type CustomHostnameStatus =
  | 'live'
  | 'dns_no_cname'
  | 'dns_wrong_cname'
  | 'dns_wrong_caa'
  | 'invalid_domain'
  | 'internal_error';

/** Where a custom hostname's CNAME must point, unless the platform is told otherwise. */
export const DEFAULT_HOSTING_TARGET = 'hosting.docs-platform.example';
/** The certificate authority the platform's certificates come from, as CAA records name it. */
export const CERTIFICATE_AUTHORITY = 'letsencrypt.org';

const CHECK_JOB = 'custom-hostname-check';

export interface HostnameCheckOptions {
  /** The outbound guard's DNS records resolver (`recordResolver`). */
  resolver: RecordResolver;
  /** The name a custom hostname's CNAME must point to. @default DEFAULT_HOSTING_TARGET */
  target?: string;
}

const bare = (name: string) => name.toLowerCase().replace(/\.+$/, '');

/** Whether CAA records let `CERTIFICATE_AUTHORITY` issue: `issue` (or `issuewild`) values name it, or none exists. */
function caaAllows(records: Array<{ issue?: string; issuewild?: string }>): boolean {
  const issuers = records.flatMap((record) => [record.issue, record.issuewild]).filter((v) => v !== undefined);
  return issuers.length === 0 || issuers.some((value) => bare(value.split(';')[0]!.trim()) === CERTIFICATE_AUTHORITY);
}

/**
 * Checks a custom hostname's DNS: its status, or null when DNS did not answer (pending). CAA
 * records are looked up from the name towards its parents (two labels at least), the first name
 * that has any deciding, as certificate authorities do.
 */
export async function checkHostname(
  hostname: string,
  resolver: RecordResolver,
  target = DEFAULT_HOSTING_TARGET,
): Promise<CustomHostnameStatus | null> {
  if (isLoopbackName(hostname) || /\.invalid\.?$/i.test(hostname)) return 'invalid_domain';
  const cname = await resolver.cname(hostname);
  if (!cname.answered) return null;
  if (cname.records.length === 0) return 'dns_no_cname';
  if (!cname.records.some((record) => bare(record) === bare(target))) return 'dns_wrong_cname';
  const labels = hostname.split('.');
  for (let from = 0; labels.length - from >= 2; from++) {
    const caa = await resolver.caa(labels.slice(from).join('.'));
    if (!caa.answered) return null;
    if (caa.records.length > 0) return caaAllows(caa.records) ? 'live' : 'dns_wrong_caa';
  }
  return 'live';
}

interface StateRow {
  hostname: string;
  site_id: string;
  status: CustomHostnameStatus | null;
  checked_at: string | null;
}

/** The status of a site's custom hostname: its last check's, or null (pending) when the site never had it checked. */
function statusOf(db: Db, site: SiteRow): CustomHostnameStatus | null {
  const row = db.prepare('SELECT * FROM custom_hostnames WHERE hostname = ?').get(site.hostname) as
    | StateRow
    | undefined;
  return row?.site_id === site.id ? row.status : null;
}

const checkInFlight = (db: Db, hostname: string) =>
  db
    .prepare(`SELECT 1 FROM jobs WHERE kind = ? AND key = ? AND state IN ('queued', 'running')`)
    .get(CHECK_JOB, `hostname:${hostname}`) !== undefined;

/** The site whose custom hostname it is (any case), if any. */
const siteWithHostname = (db: Db, hostname: string) =>
  db.prepare('SELECT * FROM sites WHERE hostname = ?').get(hostname.toLowerCase()) as SiteRow | undefined;

type CheckPayload = { hostname: string; siteId: string };

/** Records what a check found, if the hostname is still the site's (it may have moved while DNS was asked). */
function record(db: Db, payload: CheckPayload, status: CustomHostnameStatus | null): void {
  db.prepare(
    `UPDATE custom_hostnames SET status = ?, checked_at = ? WHERE hostname = ? AND site_id = ?
       AND EXISTS (SELECT 1 FROM sites WHERE id = ? AND hostname = ?)`,
  ).run(status, now(), payload.hostname, payload.siteId, payload.siteId, payload.hostname);
}

/** Declares the DNS checks of custom hostnames on the job queue. */
export function registerHostnameChecks(queue: JobQueue, options: HostnameCheckOptions): void {
  queue.register<CheckPayload>(CHECK_JOB, {
    interrupted: 'resume',
    run: async (payload, { db }) => {
      record(db, payload, await checkHostname(payload.hostname, options.resolver, options.target));
    },
    failed: (payload, _reason, { db }) => record(db, payload, 'internal_error'),
  });
}

/**
 * Makes a site's custom hostname pending and queues its DNS check (call it in the transaction of the
 * write that asks for it: a revalidation, a new hostname for the site): what was found before is not
 * claimed while the check runs.
 */
export function queueHostnameCheck(db: Db, queue: JobQueue, hostname: string, siteId: string): void {
  db.prepare(
    `INSERT INTO custom_hostnames (hostname, site_id, status, checked_at) VALUES (?, ?, NULL, NULL)
     ON CONFLICT (hostname) DO UPDATE SET site_id = excluded.site_id, status = NULL`,
  ).run(hostname, siteId);
  queue.enqueue(CHECK_JOB, { hostname, siteId } satisfies CheckPayload, { key: `hostname:${hostname}` });
}

/** The description's `CustomHostname` of a site's hostname; `status` left out while pending. */
function customHostnameJson(db: Db, site: SiteRow, api: string) {
  const status = statusOf(db, site);
  return {
    object: 'custom-hostname' as const,
    hostname: site.hostname!,
    target: { type: 'site' as const, site: site.id },
    isActive: status === 'live',
    ...(status ? { status } : {}),
    urls: { location: `${api}/custom-hostnames/${encodeURIComponent(site.hostname!)}` },
  };
}

type HostnameParams = { hostname: string };

/** The description's pattern of a subdomain. */
const SUBDOMAIN = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;

/**
 * `/custom-hostnames/{hostname}`: members of the site's organization read a hostname's state,
 * admins (who set it on the site) revalidate and remove it; to anybody else it does not exist. A
 * revalidation is refused (409, the description's answer for a status that does not allow it)
 * while a check of the name is queued or running, and for an `invalid_domain`.
 * `/subdomains/{subdomain}`: an organization's subdomain, for its members.
 */
export function customHostnameRoutes(app: FastifyInstance, options: { queue: JobQueue }): void {
  app.get<{ Params: HostnameParams }>('/custom-hostnames/:hostname', async (request) => {
    const { db, access, links } = request.ctx;
    const site = siteWithHostname(db, request.params.hostname);
    if (!site || access.orgRole(site.org_id) === undefined) throw notFound('Custom hostname');
    requireSiteRole(access, site.org_id, site.id, 'read');
    return customHostnameJson(db, site, links.api);
  });

  app.patch<{ Params: HostnameParams }>('/custom-hostnames/:hostname', async (request, reply) => {
    const { db, access } = request.ctx;
    const site = siteWithHostname(db, request.params.hostname);
    if (!site || access.orgRole(site.org_id) === undefined) throw notFound('Custom hostname');
    requireSiteRole(access, site.org_id, site.id, 'admin');
    const hostname = site.hostname!;
    db.transaction(() => {
      if (statusOf(db, site) === 'invalid_domain') {
        throw conflict(`The custom hostname ${hostname} cannot be revalidated: it is a name that can never be public`);
      }
      if (checkInFlight(db, hostname)) {
        throw conflict(`A DNS check of ${hostname} is already under way: its status cannot be revalidated yet`);
      }
      queueHostnameCheck(db, options.queue, hostname, site.id);
    })();
    return reply.code(204).send();
  });

  app.delete<{ Params: HostnameParams }>('/custom-hostnames/:hostname', async (request, reply) => {
    const { db, access } = request.ctx;
    const site = siteWithHostname(db, request.params.hostname);
    if (!site || access.orgRole(site.org_id) === undefined) return sendDeleted(reply, false);
    requireSiteRole(access, site.org_id, site.id, 'admin');
    db.transaction(() => {
      db.prepare('UPDATE sites SET hostname = NULL WHERE id = ?').run(site.id);
      db.prepare('DELETE FROM custom_hostnames WHERE hostname = ?').run(site.hostname);
      touchSite(db, site.id);
    })();
    return sendDeleted(reply, true);
  });

  app.get<{ Params: { subdomain: string } }>('/subdomains/:subdomain', async (request) => {
    const { db, access } = request.ctx;
    const { subdomain } = request.params;
    if (!SUBDOMAIN.test(subdomain)) {
      throw badRequest(
        'Invalid path parameter "subdomain": must be 3 to 32 lower-case letters, digits or "-", starting and ending with a letter or digit',
      );
    }
    const org = db.prepare('SELECT * FROM organizations WHERE lower(hostname) = ?').get(subdomain) as
      | OrganizationRow
      | undefined;
    if (!org || access.orgRole(org.id) === undefined) throw notFound('Subdomain');
    return {
      object: 'subdomain' as const,
      subdomain,
      target: { type: 'organization' as const, organization: org.id },
      isActive: true,
    };
  });
}
