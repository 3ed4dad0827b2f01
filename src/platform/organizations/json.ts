import { atLeast, type Role } from '../access.js';
import { json } from '../http.js';
import type { Links } from '../links.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { normalizedDocument } from '../schemas.js';
import { countPaidMembers, type AgentInstructionsRow } from './store.js';

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
    paidMembers: countPaidMembers(db, org.id),
    canChangeInterval: terms.paid,
    canUseSAML: terms.saml,
    creditsBundle: terms.paid ? ('none' as const) : null,
    aiCreditAlertThreshold: null,
  };
}

/**
 * Agent instructions of an organization. Until someone writes them they are the empty document
 * the organization started with, so they were last updated when, and by whom, it was created.
 */
export function agentInstructionsJson(stored: AgentInstructionsRow | undefined, org: OrganizationRow, api: string) {
  const updatedBy = stored?.updated_by ?? org.created_by;
  return {
    object: 'agent-instructions' as const,
    instructions: stored
      ? normalizedDocument(JSON.parse(stored.instructions))
      : { object: 'document', data: { schemaVersion: 1 }, nodes: [] },
    updatedAt: stored?.updated_at ?? org.created_at,
    ...(updatedBy ? { updatedBy } : {}),
    urls: { location: `${api}/orgs/${org.id}/agent-instructions` },
  };
}
