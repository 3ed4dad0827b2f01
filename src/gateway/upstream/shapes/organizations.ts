import { z } from 'zod';
import { dateTime, document, mergeRules, roleOrGuest, url } from './common.js';

const pricePair = z.object({ monthly: z.number().nullish(), yearly: z.number().nullish() }).partial();

export const ORGANIZATION_TYPES = ['business', 'community'] as const;
export const USE_CASES = [
  'internalDocs',
  'docsSite',
  'audienceControlledSite',
  'productDocs',
  'teamKnowledgeBase',
  'designSystem',
  'openSourceDocs',
  'notes',
  'other',
] as const;
export const COMMUNITY_TYPES = ['nonProfit', 'openSource', 'education'] as const;
/** The API's `BillingProduct`. */
export const PLANS = [
  'free_2024',
  'plus_2024',
  'pro_2024',
  'enterprise_2024',
  'community_2024',
  'free',
  'plus',
  'pro',
  'internal',
] as const;
export const BILLING_INTERVALS = ['monthly', 'yearly'] as const;
export const TRIAL_STATUSES = ['notapplicable', 'none', 'active', 'ended', 'expired'] as const;
export const TRIAL_DECISIONS = ['downgrade'] as const;
export const BLOCK_SOURCES = ['backoffice', 'external', 'internal'] as const;
export const DEFAULT_CONTENT_TYPES = ['site'] as const;

export const organization = z.object({
  object: z.literal('organization'),
  id: z.string(),
  title: z.string(),
  createdAt: dateTime,
  emailDomains: z.array(z.string()).default([]),
  hostname: z.string().nullish(),
  type: z.enum(ORGANIZATION_TYPES).nullish(),
  useCase: z.enum(USE_CASES).nullish(),
  communityType: z.enum(COMMUNITY_TYPES).nullish(),
  defaultRole: roleOrGuest.optional(),
  defaultContent: z.object({ type: z.enum(DEFAULT_CONTENT_TYPES), site: z.string().optional() }).nullish(),
  sso: z.boolean().nullish(),
  ai: z.boolean().nullish(),
  inviteLinks: z.boolean().nullish(),
  plan: z.enum(PLANS).nullish(),
  billing: z
    .object({
      interval: z.enum(BILLING_INTERVALS).nullish(),
      endDate: z.string().nullish(),
      hasPaymentFailed: z.boolean().nullish(),
      isScheduledToCancel: z.boolean().nullish(),
      pricing: z
        .object({
          members: z.record(z.string(), pricePair).nullish(),
          sites: z.record(z.string(), pricePair).nullish(),
        })
        .nullish(),
      usageAddons: z.record(z.string(), z.object({ enabled: z.boolean() })).nullish(),
      minUsers: z.number().nullish(),
      maxUsers: z.number().nullish(),
      paidMembers: z.number().nullish(),
    })
    .nullish(),
  mergeRules: mergeRules.nullish(),
  urls: z.object({
    location: url.nullish(),
    app: url.nullish(),
    logo: url.nullish(),
  }),
  trial: z
    .object({
      status: z.enum(TRIAL_STATUSES).nullish(),
      count: z.number().nullish(),
      endDate: z.string().nullish(),
      decision: z.enum(TRIAL_DECISIONS).nullish(),
    })
    .nullish(),
  customHostname: z.string().nullish(),
  blocked: z.object({ source: z.enum(BLOCK_SOURCES).nullish(), reason: z.string().nullish() }).nullish(),
  permissions: z
    .object({
      view: z.boolean(),
      admin: z.boolean(),
      ownTeam: z.boolean(),
      createContent: z.boolean(),
      createOpenAPISpec: z.boolean(),
      ingestConversations: z.boolean(),
      viewBilling: z.boolean(),
      listMembers: z.boolean(),
      listTeams: z.boolean(),
      listIntegrations: z.boolean(),
      listInstallations: z.boolean(),
      installIntegration: z.boolean(),
    })
    .partial(),
});
export type Organization = z.infer<typeof organization>;

export const organizationsByEmailDomain = z.object({ organizations: z.array(organization) });

export const agentInstructions = z.object({
  object: z.literal('agent-instructions'),
  instructions: document,
  updatedAt: dateTime,
  updatedBy: z.string().nullish(),
  urls: z.object({ location: url.nullish() }).nullish(),
});
export type AgentInstructions = z.infer<typeof agentInstructions>;

export const pingResult = z
  .object({ serviceVisitorClaims: z.string().optional(), gitbookVisitorClaims: z.string().optional() })
  .nullish();
