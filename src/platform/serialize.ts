import { atLeast, type Role } from './access.js';
import { json } from './http.js';
import { gitSyncState } from './git/sync.js';
import type { Db } from './store/db.js';
import type { CollectionRow, MemberRow, OrganizationRow, SpaceRow, TeamRow, UserRow } from './rows.js';

/** Base URLs of the answering server, taken from the request. */
export interface Links {
  /** `http://host:port/v1` */
  api: string;
  /** `http://host:port/app`: where the web app would show a resource. */
  app: string;
  /** `http://host:port/published`: where published content would be served. */
  published: string;
  /** `http://host:port/files`: where files are downloaded, by signed URL. */
  files: string;
  /** `http://host:port/pdf`: where PDF exports are served, by signed URL. */
  pdf: string;
  /** `http://host:port/openapi`: where versions of OpenAPI specifications are served, by signed URL. */
  openapi: string;
}

/** The links of a server answering at `origin` (`http://host:port`). */
export function linksFor(origin: string): Links {
  return {
    api: `${origin}/v1`,
    app: `${origin}/app`,
    published: `${origin}/published`,
    files: `${origin}/files`,
    pdf: `${origin}/pdf`,
    openapi: `${origin}/openapi`,
  };
}

export function userJson(user: UserRow, links: Links) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.display_name,
    email: user.email,
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: `${links.api}/users/${user.id}` },
  };
}

/**
 * An organization as seen by a member whose role is `role` (`null`: guest; `undefined`: someone
 * outside it, who finds it by e-mail domain). Permissions follow the rules documented in the
 * README; only admins (`viewBilling`) get `billing`.
 */
export function organizationJson(db: Db, org: OrganizationRow, role: Role | null | undefined, links: Links) {
  const admin = role === 'admin';
  const member = role !== null && role !== undefined;
  return {
    object: 'organization' as const,
    id: org.id,
    title: org.title,
    createdAt: org.created_at,
    emailDomains: json.parse<string[]>(org.email_domains, []),
    ...(org.hostname ? { hostname: org.hostname } : {}),
    type: org.type,
    ...(org.use_case ? { useCase: org.use_case } : {}),
    ...(org.community_type ? { communityType: org.community_type } : {}),
    defaultRole: org.default_role,
    ...(org.default_content ? { defaultContent: JSON.parse(org.default_content) } : {}),
    sso: org.sso === 1,
    ai: org.ai === 1,
    inviteLinks: org.invite_links === 1,
    plan: org.plan,
    ...(admin ? { billing: billingJson(db, org) } : {}),
    mergeRules: JSON.parse(org.merge_rules),
    urls: {
      location: `${links.api}/orgs/${org.id}`,
      app: `${links.app}/o/${org.id}`,
      ...(org.logo ? { logo: org.logo } : {}),
    },
    // The platform offers no trials: none was ever started.
    trial: { status: 'none', count: 0 },
    permissions: {
      view: true,
      // Members and guests open the organization in the app; those outside it only see it listed.
      access: role !== undefined,
      admin,
      ownTeam: admin,
      createContent: atLeast(role, 'create'),
      createOpenAPISpec: atLeast(role, 'create'),
      ingestConversations: admin,
      viewBilling: admin,
      listMembers: member,
      listTeams: member,
      listIntegrations: true,
      listInstallations: admin,
      installIntegration: admin,
    },
  };
}

interface PlanTerms {
  paid: boolean;
  minUsers: number;
  maxUsers: number;
  saml: boolean;
}

const FREE_TERMS: PlanTerms = { paid: false, minUsers: 1, maxUsers: 10, saml: false };

/** Seat limits of each plan (`_2024` products share the terms of their name without suffix). */
const PLAN_TERMS: Record<string, PlanTerms> = {
  free: FREE_TERMS,
  community: { paid: false, minUsers: 1, maxUsers: 1000, saml: false },
  plus: { paid: true, minUsers: 1, maxUsers: 200, saml: false },
  pro: { paid: true, minUsers: 1, maxUsers: 1000, saml: false },
  enterprise: { paid: true, minUsers: 25, maxUsers: 100_000, saml: true },
  internal: { paid: false, minUsers: 1, maxUsers: 100_000, saml: true },
};

/** List prices in USD per month, for monthly billing and for yearly billing. */
const PRICING = {
  members: { plus_2024: { monthly: 10, yearly: 8 }, pro_2024: { monthly: 15, yearly: 12 } },
  sites: { premium: { monthly: 79, yearly: 65 }, ultimate: { monthly: 299, yearly: 249 } },
};

/**
 * The next monthly renewal after `at` of a subscription that started at `start`, on the same
 * day of the month (the last day for shorter months).
 */
export function nextMonthlyRenewal(start: string, at = new Date()): string {
  const from = new Date(start);
  const day = from.getUTCDate();
  let months = (at.getUTCFullYear() - from.getUTCFullYear()) * 12 + at.getUTCMonth() - from.getUTCMonth();
  for (;;) {
    const year = from.getUTCFullYear();
    const month = from.getUTCMonth() + months;
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const renewal = new Date(
      Date.UTC(year, month, Math.min(day, lastDay), from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds()),
    );
    if (renewal > at) return renewal.toISOString();
    months += 1;
  }
}

/**
 * Billing of an organization, derived from its plan: a monthly subscription renewing on the day
 * the organization was created (paid plans), list prices, seat limits, and `paidMembers`
 * counting the enabled non-guest members.
 */
export function billingJson(db: Db, org: OrganizationRow) {
  const terms = PLAN_TERMS[org.plan.replace(/_2024$/, '')] ?? FREE_TERMS;
  const { n } = db
    .prepare('SELECT COUNT(*) AS n FROM members WHERE org_id = ? AND role IS NOT NULL AND disabled = 0')
    .get(org.id) as { n: number };
  const ai = terms.paid && org.ai === 1;
  return {
    interval: 'monthly' as const,
    endDate: terms.paid ? nextMonthlyRenewal(org.created_at) : null,
    hasPaymentFailed: false,
    canCheckout: true,
    isScheduledToCancel: false,
    pricing: PRICING,
    usageAddons: {
      ai_responses: { enabled: ai },
      ai_agent_responses: { enabled: ai },
      translation_words: { enabled: false },
    },
    minUsers: terms.minUsers,
    maxUsers: terms.maxUsers,
    paidMembers: n,
    canChangeInterval: terms.paid,
    canUseSAML: terms.saml,
    creditsBundle: terms.paid ? ('none' as const) : null,
    aiCreditAlertThreshold: null,
  };
}

export function memberJson(db: Db, member: MemberRow, user: UserRow, links: Links) {
  const spaces = db
    .prepare(
      `SELECT COUNT(*) AS n FROM content_permissions cp JOIN spaces s ON s.id = cp.content_id
       WHERE cp.content_type = 'space' AND cp.principal_type = 'user' AND cp.principal_id = ?
       AND s.org_id = ? AND s.deleted_at IS NULL`,
    )
    .get(member.user_id, member.org_id) as { n: number };
  const teams = db
    .prepare(
      'SELECT COUNT(*) AS n FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE tm.user_id = ? AND t.org_id = ?',
    )
    .get(member.user_id, member.org_id) as { n: number };
  return {
    object: 'member' as const,
    id: member.user_id,
    role: member.role as Role | null,
    user: userJson(user, links),
    disabled: member.disabled === 1,
    joinedAt: member.joined_at,
    ...(member.last_seen_at ? { lastSeenAt: member.last_seen_at } : {}),
    sso: member.sso === 1,
    spaces: spaces.n,
    teams: teams.n,
    // Members (not guests) read every site of the organization.
    sites:
      member.role === null
        ? 0
        : (db.prepare('SELECT COUNT(*) FROM sites WHERE org_id = ?').pluck(true).get(member.org_id) as number),
  };
}

/** A team; `canManage` is true for organization admins and owners of the team. */
export function teamJson(db: Db, team: TeamRow, canManage: boolean) {
  const members = db.prepare('SELECT COUNT(*) AS n FROM team_members WHERE team_id = ?').get(team.id) as { n: number };
  const spaces = db
    .prepare(
      `SELECT COUNT(*) AS n FROM content_permissions cp JOIN spaces s ON s.id = cp.content_id
       WHERE cp.content_type = 'space' AND cp.principal_type = 'team' AND cp.principal_id = ? AND s.deleted_at IS NULL`,
    )
    .get(team.id) as { n: number };
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: members.n,
    spaces: spaces.n,
    createdAt: team.created_at,
    permissions: { admin: canManage, view: true },
  };
}

/** A collection as seen by a user whose effective role on it is `role`. */
export function collectionJson(collection: CollectionRow, role: Role | null, links: Links) {
  return {
    object: 'collection' as const,
    id: collection.id,
    title: collection.title,
    ...(collection.description !== null ? { description: collection.description } : {}),
    organization: collection.org_id,
    ...(collection.parent_id ? { parent: collection.parent_id } : {}),
    defaultLevel: collection.default_level,
    urls: {
      location: `${links.api}/collections/${collection.id}`,
      app: `${links.app}/o/${collection.org_id}/c/${collection.id}`,
    },
    permissions: {
      view: role !== null,
      admin: atLeast(role, 'admin'),
      viewInviteLinks: atLeast(role, 'admin'),
      create: atLeast(role, 'create'),
    },
  };
}

/**
 * A space as seen by a user whose effective role on it is `role` (`null`: public reader). For
 * its admins, the published URL of a `share-link` space carries the `shareKey` that opens it.
 */
export function spaceJson(space: SpaceRow, role: Role | null, links: Links) {
  const published = `${links.published}/${space.id}`;
  // The share key is the secret of a share-link space: only its admins are given it.
  const sharedLink =
    space.visibility === 'share-link' && atLeast(role, 'admin')
      ? `${published}?shareKey=${encodeURIComponent(space.share_key)}`
      : published;
  return {
    object: 'space' as const,
    id: space.id,
    title: space.title,
    // The description's value for "no emoji" is "".
    emoji: space.emoji ?? '',
    visibility: space.visibility,
    createdAt: space.created_at,
    updatedAt: space.updated_at,
    ...(space.deleted_at ? { deletedAt: space.deleted_at } : {}),
    editMode: space.edit_mode,
    mergeRules: JSON.parse(space.merge_rules),
    urls: {
      location: `${links.api}/spaces/${space.id}`,
      app: `${links.app}/s/${space.id}`,
      published: sharedLink,
      ...(space.visibility === 'public' || space.visibility === 'unlisted' ? { public: published } : {}),
    },
    organization: space.org_id,
    ...(space.parent_id ? { parent: space.parent_id } : {}),
    ...(space.language ? { language: space.language } : {}),
    ...(space.git_sync ? { gitSync: gitSyncState(space) } : {}),
    ...(space.visitor_auth ? { visitorAuth: JSON.parse(space.visitor_auth) } : {}),
    revision: space.revision,
    defaultLevel: space.default_level,
    comments: 0,
    changeRequests: space.change_requests,
    changeRequestsOpen: space.change_requests_open,
    changeRequestsDraft: space.change_requests_draft,
    permissions: {
      view: true,
      access: role !== null,
      admin: atLeast(role, 'admin'),
      viewInviteLinks: atLeast(role, 'admin'),
      edit: atLeast(role, 'edit') && space.edit_mode === 'live',
      triggerGitSync: atLeast(role, 'edit'),
      comment: atLeast(role, 'comment'),
      merge: atLeast(role, 'review'),
      review: atLeast(role, 'review'),
      installIntegration: atLeast(role, 'admin'),
    },
  };
}
