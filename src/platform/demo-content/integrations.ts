import { recordSpaceEvents } from '../integrations/events.js';
import { findInstallation, install, installOn, updateInstallation, updateOn } from '../integrations/installations.js';
import { type Publication, publishIntegration } from '../integrations/store.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { type DemoIntegrations, loadDemoIntegrations } from './load.js';

/**
 * Seeds the demo integrations (`integrations/integrations.json`) through the integrations domain: each published,
 * installed on organizations (configured), enabled on spaces and sites (configured), and the events an installed
 * integration sees recorded. None declares an endpoint: the events are recorded, not delivered.
 */
export function seedDemoIntegrations(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  data: DemoIntegrations & { icons: Map<string, Buffer> } = loadDemoIntegrations(),
): void {
  const org = (id: string) => {
    const row = db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined;
    if (!row) throw new Error(`Demo integrations name the organization "${id}", which is no demo organization`);
    return row;
  };
  const target = (on: { space?: string | undefined; site?: string | undefined }, orgId: string) => {
    const id =
      on.space !== undefined
        ? spaceIds.get(on.space)
        : (db.prepare('SELECT id FROM sites WHERE org_id = ? AND title = ?').pluck(true).get(orgId, on.site) as
            | string
            | undefined);
    if (!id) throw new Error(`Demo integrations name "${on.space ?? on.site}", which is no demo space or site`);
    return { kind: on.space !== undefined ? ('space' as const) : ('site' as const), id };
  };
  for (const item of data.integrations) {
    const icon = data.icons.get(item.name);
    const { row: integration } = publishIntegration(db, org(item.org), item.name, {
      runtime: item.runtime,
      visibility: item.visibility,
      target: item.target,
      definition: item.definition as unknown as Publication['definition'],
      script: item.script,
      ...(icon && item.icon ? { icon: { bytes: icon, contentType: item.icon.contentType } } : {}),
      ...(item.secrets ? { secrets: item.secrets } : {}),
    });
    for (const installation of item.installations) {
      const orgRow = org(installation.org);
      const installed = install(db, integration, orgRow);
      const current = () => findInstallation(db, integration, installed.id)!;
      if (installation.configuration !== undefined || installation.externalIds !== undefined) {
        updateInstallation(db, integration, current(), {
          ...(installation.configuration !== undefined ? { configuration: installation.configuration } : {}),
          ...(installation.externalIds !== undefined ? { externalIds: installation.externalIds } : {}),
        });
      }
      for (const on of installation.on ?? []) {
        const { kind, id } = target(on, orgRow.id);
        installOn(db, integration, current(), kind, id);
        if (on.configuration !== undefined)
          updateOn(db, integration, current(), kind, id, { configuration: on.configuration });
        for (const type of on.events ?? []) {
          // A merge into the space, as an installed integration sees it.
          const revision = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(id) as string;
          recordSpaceEvents(db, id, { type, revisionId: revision, updatedBy: [] });
        }
      }
    }
  }
}
