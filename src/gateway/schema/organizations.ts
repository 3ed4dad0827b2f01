import { z } from 'zod';
import { listConnection } from './kit/connections.js';
import { ownedIdInput, platformKey } from './kit/ids.js';
import type { MergeRulesSpaceConfiguration as MergeRules } from '../upstream/contract/types.js';
import { S } from '../upstream/contract/schemas.js';
import {
  deleteOrganizationInvite,
  getAgentInstructions,
  getOrganization,
  joinOrganization,
  listOrganizations,
  listOrganizationsByEmailDomain,
  updateAgentInstructions,
  updateOrganization,
} from '../upstream/organizations.js';
import type {
  BillingInterval,
  BillingProduct,
  BillingTrialStatus,
  BlockSource,
  OrganizationAgentInstructions as AgentInstructions,
  Organization,
  OrganizationCommunityType,
  OrganizationType,
  OrganizationUseCase,
} from '../upstream/contract/types.js';
import { DEFAULT_LIST_ITEMS } from '../policy/cost.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { linkTo, loadableNode, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { deletedPayload, objectPayload } from './kit/payloads.js';
import { DocumentInput, DocumentType, documentInput } from './kit/document.js';
import { idInput } from './kit/ids.js';
import { noNull, restBody } from './kit/mutations.js';
import { permissionsType } from './kit/permissions.js';
import { restEnum, RoleEnum } from './kit/enums.js';
import { UserNode } from './users.js';

export const OrganizationNode = loadableNode<Organization>('Organization', {
  load: (id, ctx) => getOrganization(ctx.api, id),
});

// --- Merge rules (organizations and spaces) -----------------------------------------------------

export const MergeRulesTypeEnum = builder.enumType('MergeRulesType', {
  description: 'How change requests must be approved before they can be merged.',
  values: {
    INHERIT: { value: 'inherit', description: 'Follows the rules of the organization.' },
    NONE: { value: 'none', description: 'Change requests can be merged without review.' },
    RULES: { value: 'rules', description: 'Every rule in `rules` must pass.' },
  },
});

/** The kinds of merge rules, with what each requires. */
const MERGE_RULE_KINDS = {
  require_specific_reviewers: 'Every listed user must approve the change request.',
  require_one_of_specific_reviewers: 'At least one of the listed users must approve the change request.',
  allow_bypass: 'The listed users may merge whatever the other rules say.',
  require_at_least_one_review: 'The change request needs at least one review.',
  require_at_least_one_approved_review: 'The change request needs at least one approval.',
  require_all_reviews_approved: 'Every review given (not those only requested) must be an approval.',
  require_up_to_date_change_request: 'The change request must be up to date with the live content.',
  require_change_request_subject: 'The change request must have a subject.',
  require_change_request_description: 'The change request must have a description.',
  require_author_to_merge: 'Only the author of the change request may merge it.',
  require_agent_review: 'An automated review must pass (not evaluated by the embedded platform, which refuses it).',
  custom: 'A custom expression must hold (not evaluated by the embedded platform, which refuses it).',
} as const;

/** Merge rules that name users. */
const USER_RULES: ReadonlySet<string> = new Set([
  'require_specific_reviewers',
  'require_one_of_specific_reviewers',
  'allow_bypass',
]);

export const MergeRuleKindEnum = builder.enumType('MergeRuleKind', {
  description: 'A kind of merge rule.',
  values: Object.fromEntries(
    Object.entries(MERGE_RULE_KINDS).map(([value, description]) => [value.toUpperCase(), { value, description }]),
  ) as { [K in keyof typeof MERGE_RULE_KINDS as Uppercase<K>]: { value: K; description: string } },
});

type MergeRuleShape = { rule: string; users?: string[] | undefined };

const MergeRule = builder.objectRef<MergeRuleShape>('MergeRule').implement({
  description: 'One rule a change request must pass before it can be merged.',
  fields: (t) => ({
    rule: t.field({
      type: MergeRuleKindEnum,
      description: 'Kind of rule.',
      resolve: (rule) => rule.rule as keyof typeof MERGE_RULE_KINDS,
    }),
    reviewers: t.field({
      type: [UserNode],
      nullable: { list: false, items: true },
      description:
        'Users the rule names (reviewers, or who may bypass the rules); empty for rules that name none. An entry is null (with an error) when that user is no longer visible.',
      extensions: upstream.links(DEFAULT_LIST_ITEMS),
      resolve: (rule, _args, _ctx, info) =>
        (rule.users ?? []).filter((id) => id !== '').map((id) => linkTo(UserNode, id, info)),
    }),
  }),
});

export const MergeRulesType = builder.objectRef<MergeRules>('MergeRules').implement({
  description: 'Approval rules for merging change requests.',
  fields: (t) => ({
    type: t.field({
      type: MergeRulesTypeEnum,
      description: 'Which kind of configuration applies.',
      resolve: (m) => m.type,
    }),
    rules: t.field({
      type: [MergeRule],
      description: 'The rules, when `type` is RULES; empty otherwise.',
      resolve: (m) => (m.type === 'rules' ? m.rules : []),
    }),
  }),
});

const mergeRule = inputObject('MergeRuleInput', {
  description: 'One merge rule: its kind, and the users it names for the kinds that name users.',
  fields: {
    kind: inputField(
      MergeRuleKindEnum,
      'Kind of rule.',
      z.enum(Object.keys(MERGE_RULE_KINDS) as [keyof typeof MERGE_RULE_KINDS]),
    ),
    reviewerIds: inputField(
      ['ID'],
      'Users (ids or global IDs) the rule names: required for REQUIRE_SPECIFIC_REVIEWERS, REQUIRE_ONE_OF_SPECIFIC_REVIEWERS and ALLOW_BYPASS, refused for the others.',
      z.array(idInput('User')).max(100).nullish(),
    ),
  },
  check: (object) =>
    object
      .superRefine((value, ctx) => {
        const named = USER_RULES.has(value.kind);
        if (named && !value.reviewerIds?.length)
          ctx.addIssue({ code: 'custom', path: ['reviewerIds'], message: 'this kind of rule needs at least one user' });
        if (!named && value.reviewerIds?.length)
          ctx.addIssue({ code: 'custom', path: ['reviewerIds'], message: 'this kind of rule names no users' });
      })
      .transform((value) =>
        USER_RULES.has(value.kind) ? { rule: value.kind, users: value.reviewerIds! } : { rule: value.kind },
      ),
});

const mergeRules = inputObject('MergeRulesInput', {
  description:
    'Approval rules: a type, plus the rules when the type is RULES (as `rules`, or the shorthand `requiredReviewers`).',
  fields: {
    type: inputField(MergeRulesTypeEnum, 'Kind of configuration.', z.enum(['inherit', 'none', 'rules'])),
    requiredReviewers: inputField(
      ['ID'],
      'With RULES: users (ids or global IDs) who must all approve, as one REQUIRE_SPECIFIC_REVIEWERS rule. Leave empty for no such rule.',
      z.array(idInput('User')).max(100).nullish(),
    ),
    rules: inputField(
      [mergeRule.type],
      'With RULES: the rules, in order (all must pass; a bypass rule lets its users through).',
      z.array(mergeRule.schema).max(50).nullish(),
    ),
  },
});

export const MergeRulesInput = mergeRules.type;

/** Merge rules as a write sends them: each rule's kind is checked by the input's own enum. */
type MergeRulesBody = { type: 'inherit' | 'none' } | { type: 'rules'; rules: MergeRuleShape[] };

/** Zod for MergeRulesInput; `allowInherit` is false for organizations, which have nothing to inherit from. */
export function mergeRulesInput(allowInherit: boolean) {
  return mergeRules.schema
    .superRefine((value, ctx) => {
      if (value.type === 'inherit' && !allowInherit) {
        ctx.addIssue({ code: 'custom', path: ['type'], message: 'an organization cannot inherit merge rules' });
      }
      if (value.type !== 'rules' && value.requiredReviewers?.length) {
        ctx.addIssue({ code: 'custom', path: ['requiredReviewers'], message: 'only allowed with type RULES' });
      }
      if (value.type !== 'rules' && value.rules?.length) {
        ctx.addIssue({ code: 'custom', path: ['rules'], message: 'only allowed with type RULES' });
      }
    })
    .transform(
      (value): MergeRulesBody =>
        value.type === 'rules'
          ? {
              type: 'rules',
              rules: [
                ...(value.requiredReviewers?.length
                  ? [{ rule: 'require_specific_reviewers', users: value.requiredReviewers }]
                  : []),
                ...(value.rules ?? []),
              ],
            }
          : { type: value.type },
    );
}

// --- Organization ------------------------------------------------------------------------------

const Permissions = permissionsType<Organization['permissions']>(
  'OrganizationPermissions',
  'What you may do in the organization.',
  {
    view: 'Can see the organization.',
    admin: 'Can administrate the organization.',
    ownTeam: 'Can create and own teams.',
    createContent: 'Can create spaces and collections.',
    createOpenAPISpec: 'Can add OpenAPI specifications.',
    ingestConversations: 'Can ingest conversations.',
    viewBilling: 'Can see billing.',
    listMembers: 'Can list the members.',
    listTeams: 'Can list the teams.',
    listIntegrations: 'Can list integrations.',
    listInstallations: 'Can list integration installations.',
    installIntegration: 'Can install integrations.',
  },
);

const Urls = builder.objectRef<Organization['urls']>('OrganizationUrls').implement({
  description: 'Addresses of the organization.',
  fields: (t) => ({
    location: t.string({ nullable: true, description: 'URL in the REST API.', resolve: (u) => u.location ?? null }),
    app: t.string({ nullable: true, description: 'URL in the web app.', resolve: (u) => u.app ?? null }),
    logo: t.string({ nullable: true, description: 'URL of the logo.', resolve: (u) => u.logo ?? null }),
  }),
});

const OrganizationTypeEnum = restEnum('OrganizationType', 'The kind of an organization.', {
  business: 'A business.',
  community: 'A community (non-profit, open source, education).',
} satisfies Record<OrganizationType, string>);

const UseCaseEnum = restEnum('OrganizationUseCase', 'What an organization uses the platform for.', {
  internalDocs: 'Internal documentation.',
  docsSite: 'A public documentation site.',
  audienceControlledSite: 'A site for a chosen audience.',
  productDocs: 'Product documentation.',
  teamKnowledgeBase: 'A knowledge base for a team.',
  designSystem: 'A design system.',
  openSourceDocs: 'Documentation of an open-source project.',
  notes: 'Notes.',
  other: 'Something else.',
} satisfies Record<OrganizationUseCase, string>);

const CommunityTypeEnum = restEnum('OrganizationCommunityType', 'The kind of a community organization.', {
  nonProfit: 'A non-profit.',
  openSource: 'An open-source project.',
  education: 'An educational institution.',
} satisfies Record<OrganizationCommunityType, string>);

const PlanEnum = restEnum('OrganizationPlan', 'The product plan of an organization (with the year of its pricing).', {
  free_2024: 'Free (2024 pricing).',
  plus_2024: 'Plus (2024 pricing).',
  pro_2024: 'Pro (2024 pricing).',
  enterprise_2024: 'Enterprise (2024 pricing).',
  community_2024: 'Community (2024 pricing).',
  free: 'Free (earlier pricing).',
  plus: 'Plus (earlier pricing).',
  pro: 'Pro (earlier pricing).',
  internal: 'Internal to the platform.',
} satisfies Record<BillingProduct, string>);

const BillingIntervalEnum = restEnum('BillingInterval', 'How often a subscription is billed.', {
  monthly: 'Every month.',
  yearly: 'Every year.',
} satisfies Record<BillingInterval, string>);

const TrialStatusEnum = restEnum('OrganizationTrialStatus', 'Where the trial of an organization stands.', {
  notapplicable: 'No trial applies to its plan.',
  none: 'No trial was started.',
  active: 'A trial is running.',
  ended: 'The trial ended.',
  expired: 'The trial expired without a decision.',
} satisfies Record<BillingTrialStatus, string>);

const TrialDecisionEnum = restEnum('OrganizationTrialDecision', 'What was decided at the end of a trial.', {
  downgrade: 'Go back to the plan before the trial.',
} satisfies Record<NonNullable<Organization['trial']['decision']>, string>);

const BlockSourceEnum = restEnum('OrganizationBlockSource', 'Who blocked an organization.', {
  backoffice: 'The platform’s staff.',
  external: 'An outside service (payments, say).',
  internal: 'The platform itself.',
} satisfies Record<BlockSource, string>);

const DefaultContentKindEnum = restEnum(
  'OrganizationDefaultContentType',
  'The kind of the default content of an organization.',
  {
    site: 'A docs site.',
  } satisfies Record<NonNullable<Organization['defaultContent']>['type'], string>,
);

type Billing = NonNullable<Organization['billing']>;
type Price = { monthly?: number | null | undefined; yearly?: number | null | undefined };

const PriceType = builder.objectRef<{ name: string; price: Price }>('PlanPrice').implement({
  description: 'Price of one plan.',
  fields: (t) => ({
    plan: t.exposeString('name', { description: 'Name of the plan (for example `pro_2024`).' }),
    monthly: t.float({ nullable: true, description: 'Monthly price.', resolve: (p) => p.price.monthly ?? null }),
    yearly: t.float({ nullable: true, description: 'Yearly price.', resolve: (p) => p.price.yearly ?? null }),
  }),
});

const prices = (record: Record<string, Price> | null | undefined) =>
  Object.entries(record ?? {}).map(([name, price]) => ({ name, price }));

const BillingType = builder.objectRef<Billing>('OrganizationBilling').implement({
  description: 'Billing state of the organization (visible to admins).',
  fields: (t) => ({
    interval: t.field({
      type: BillingIntervalEnum,
      nullable: true,
      description: 'Billing interval.',
      resolve: (b) => b.interval ?? null,
    }),
    endDate: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'End of the current period.',
      resolve: (b) => b.endDate ?? null,
    }),
    hasPaymentFailed: t.boolean({
      description: 'True when the last payment failed.',
      resolve: (b) => b.hasPaymentFailed ?? false,
    }),
    isScheduledToCancel: t.boolean({
      description: 'True when the subscription ends at `endDate`.',
      resolve: (b) => b.isScheduledToCancel ?? false,
    }),
    memberPrices: t.field({
      type: [PriceType],
      description: 'Per-member prices by plan.',
      resolve: (b) => prices(b.pricing?.members),
    }),
    sitePrices: t.field({
      type: [PriceType],
      description: 'Per-site prices by plan.',
      resolve: (b) => prices(b.pricing?.sites),
    }),
    enabledAddons: t.stringList({
      description: 'Names of the usage add-ons that are enabled.',
      resolve: (b) =>
        Object.entries(b.usageAddons ?? {})
          .filter(([, a]) => a.enabled)
          .map(([name]) => name),
    }),
    minUsers: t.int({ nullable: true, description: 'Minimum billed users.', resolve: (b) => b.minUsers ?? null }),
    maxUsers: t.int({ nullable: true, description: 'Maximum billed users.', resolve: (b) => b.maxUsers ?? null }),
    paidMembers: t.int({ nullable: true, description: 'Members paid for.', resolve: (b) => b.paidMembers ?? null }),
  }),
});

const TrialType = builder.objectRef<NonNullable<Organization['trial']>>('OrganizationTrial').implement({
  description: 'Trial state of the organization.',
  fields: (t) => ({
    status: t.field({
      type: TrialStatusEnum,
      nullable: true,
      description: 'Where the trial stands.',
      resolve: (x) => x.status ?? null,
    }),
    count: t.int({ nullable: true, description: 'Number of trials taken.', resolve: (x) => x.count ?? null }),
    endDate: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'End of the trial.',
      resolve: (x) => x.endDate ?? null,
    }),
    decision: t.field({
      type: TrialDecisionEnum,
      nullable: true,
      description: 'Decision taken at the end of the trial.',
      resolve: (x) => x.decision ?? null,
    }),
  }),
});

const BlockedType = builder.objectRef<NonNullable<Organization['blocked']>>('OrganizationBlock').implement({
  description: 'Why the organization is blocked.',
  fields: (t) => ({
    source: t.field({
      type: BlockSourceEnum,
      nullable: true,
      description: 'Who blocked it.',
      resolve: (x) => x.source ?? null,
    }),
    reason: t.string({ nullable: true, description: 'Why it was blocked.', resolve: (x) => x.reason ?? null }),
  }),
});

/** The default content of an organization, with the organization it belongs to (for its links). */
export type DefaultContent = NonNullable<Organization['defaultContent']> & { organizationId: string };

export const DefaultContentType = builder.objectRef<DefaultContent>('OrganizationDefaultContent').implement({
  description: 'What visitors of the organization hostname see first.',
  fields: (t) => ({
    type: t.field({ type: DefaultContentKindEnum, description: 'Kind of content.', resolve: (x) => x.type }),
    siteId: t.string({ nullable: true, description: 'Platform id of the docs site.', resolve: (x) => x.site ?? null }),
  }),
});

export const AgentInstructionsType = builder
  .objectRef<AgentInstructions & { organizationId: string }>('AgentInstructions')
  .implement({
    description: 'Instructions given to the AI agents of an organization.',
    fields: (t) => ({
      instructions: t.field({ type: DocumentType, description: 'The instructions.', resolve: (a) => a.instructions }),
      updatedAt: t.field({ type: 'DateTime', description: 'When they last changed.', resolve: (a) => a.updatedAt }),
      updatedBy: t.field({
        type: UserNode,
        nullable: true,
        description: 'Who last changed them.',
        extensions: upstream.link,
        resolve: (a, _args, _ctx, info) => linkTo(UserNode, a.updatedBy, info),
      }),
      organization: t.field({
        type: OrganizationNode,
        description: 'The organization they belong to.',
        extensions: upstream.link,
        resolve: (a, _args, _ctx, info) => linkTo(OrganizationNode, a.organizationId, info),
      }),
    }),
  });

OrganizationNode.implement({
  description: 'An organization: owns members, teams, collections, spaces and sites.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the organization on the platform.' }),
    title: t.exposeString('title', { description: 'Name of the organization.' }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (o) => o.createdAt }),
    emailDomains: t.exposeStringList('emailDomains', {
      description: 'Users with a verified e-mail in one of these domains may join.',
    }),
    hostname: t.string({
      nullable: true,
      description: 'Default hostname of its public content.',
      resolve: (o) => o.hostname ?? null,
    }),
    type: t.field({
      type: OrganizationTypeEnum,
      nullable: true,
      description: 'Kind of organization.',
      resolve: (o) => o.type ?? null,
    }),
    useCase: t.field({
      type: UseCaseEnum,
      nullable: true,
      description: 'What the organization uses the platform for.',
      resolve: (o) => o.useCase ?? null,
    }),
    communityType: t.field({
      type: CommunityTypeEnum,
      nullable: true,
      description: 'Kind of community, for community organizations.',
      resolve: (o) => o.communityType ?? null,
    }),
    defaultRole: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Role given to people who join; null means they join as guests.',
      resolve: (o) => o.defaultRole ?? null,
    }),
    defaultContent: t.field({
      type: DefaultContentType,
      nullable: true,
      description: 'The content shown on the organization hostname.',
      resolve: (o) => (o.defaultContent ? { ...o.defaultContent, organizationId: o.id } : null),
    }),
    sso: t.boolean({ description: 'True when SSO is enforced for every member.', resolve: (o) => o.sso ?? false }),
    ai: t.boolean({ description: 'True when AI features are enabled.', resolve: (o) => o.ai ?? false }),
    inviteLinks: t.boolean({
      description: 'True when invite links are enabled.',
      resolve: (o) => o.inviteLinks ?? false,
    }),
    plan: t.field({ type: PlanEnum, nullable: true, description: 'Product plan.', resolve: (o) => o.plan ?? null }),
    billing: t.field({
      type: BillingType,
      nullable: true,
      description: 'Billing state.',
      resolve: (o) => o.billing ?? null,
    }),
    mergeRules: t.field({
      type: MergeRulesType,
      nullable: true,
      description: 'Approval rules for change requests in the organization.',
      resolve: (o) => o.mergeRules ?? null,
    }),
    urls: t.field({ type: Urls, description: 'Addresses of the organization.', resolve: (o) => o.urls }),
    trial: t.field({ type: TrialType, nullable: true, description: 'Trial state.', resolve: (o) => o.trial ?? null }),
    customHostname: t.string({
      nullable: true,
      description: 'Custom hostname.',
      resolve: (o) => o.customHostname ?? null,
    }),
    blocked: t.field({
      type: BlockedType,
      nullable: true,
      description: 'Set when the organization is blocked.',
      resolve: (o) => o.blocked ?? null,
    }),
    permissions: t.field({ type: Permissions, description: 'What you may do here.', resolve: (o) => o.permissions }),
    agentInstructions: t.field({
      type: AgentInstructionsType,
      nullable: true,
      description:
        'Instructions given to the AI agents of the organization; null with FORBIDDEN for guests, who cannot read them.',
      extensions: upstream.fetch(1),
      resolve: async (o, _args, ctx) => ({
        ...(await getAgentInstructions(ctx.api, o.id)),
        organizationId: o.id,
      }),
    }),
  }),
});

builder.queryFields((t) => ({
  organizations: t.connection(
    {
      type: OrganizationNode,
      description: 'The organizations you are a member of.',
      resolve: async (_root, args, ctx) => {
        const connection = await listConnection(args, listOrganizations(ctx.api));
        prime(
          OrganizationNode,
          ctx,
          connection.edges.map((edge) => edge.node),
        );
        return connection;
      },
    },
    {},
    { name: 'QueryOrganizationsEdge', description: 'An item of a connection with its cursor.' },
  ),
  organization: t.field({
    type: OrganizationNode,
    nullable: true,
    description: 'An organization by id (platform id or global ID); null with NOT_FOUND when it is not visible to you.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the organization.' }) },
    resolve: (_root, args) => platformKey(String(args.id), 'Organization'),
  }),
  organizationsByEmailDomain: t.field({
    type: [OrganizationNode],
    nullable: { list: false, items: true },
    description:
      'Organizations that people with an e-mail address in `domain` may join (empty unless your own e-mail is in that domain). Until you join, their content is not visible to you.',
    args: { domain: t.arg.string({ required: true, description: 'An e-mail domain, such as `example.com`.' }) },
    resolve: async (_root, args, ctx) => {
      const { organizations } = await listOrganizationsByEmailDomain(ctx.api, args.domain.trim().toLowerCase());
      // Not primed: these organizations are described as a non-member sees them, and
      // GET /orgs/{id} may well refuse them to the same caller.
      return organizations;
    },
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const OrganizationPayload = (mutation: string) =>
  objectPayload(mutation, 'organization', OrganizationNode, 'The organization after the change.');

/** The `organizationId` field of a mutation input naming an organization. */
export const organizationIdField = inputField(
  'ID',
  'Platform id or global ID of the organization.',
  idInput('Organization'),
);

declareMutation('updateOrganization', {
  description: 'Changes the settings of an organization (admins).',
  input: 'Changes to an organization; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    organizationId: organizationIdField,
    title: inputField(
      'String',
      'New name, 2 to 255 characters.',
      z.string().trim().min(2, 'must be 2 to 255 characters').max(255, 'must be 2 to 255 characters').nullish(),
    ),
    emailDomains: inputField(
      ['String'],
      'E-mail domains whose users may join (replaces the list).',
      z
        .array(
          z
            .string()
            .trim()
            .toLowerCase()
            .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain such as example.com'),
        )
        .max(50)
        .nullish(),
    ),
    hostname: inputField(
      'String',
      'Default hostname, 3 to 32 lowercase letters, digits or dashes.',
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/, 'must be 3 to 32 lowercase letters, digits or dashes')
        .nullish(),
    ),
    defaultRole: inputField(RoleEnum, 'Role of people who join; null makes them guests.', S.MemberRole.nullish()),
    defaultContentSiteId: inputField(
      'ID',
      'Docs site shown on the organization hostname (platform id or Site global ID); null removes it.',
      // A Site global ID carries its organization: the REST body wants the site's own id.
      ownedIdInput('Site').nullish(),
    ),
    logo: inputField(
      'String',
      'URL of the logo; null removes it.',
      z
        .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
        .max(2048, 'must be at most 2048 characters')
        .nullish(),
    ),
    sso: inputField('Boolean', 'Enforce SSO for every member.', z.boolean().nullish()),
    ai: inputField('Boolean', 'Enable AI features.', z.boolean().nullish()),
    inviteLinks: inputField('Boolean', 'Enable invite links.', z.boolean().nullish()),
    mergeRules: inputField(MergeRulesInput, 'Approval rules (NONE or RULES).', mergeRulesInput(false).nullish()),
  },
  check: (input) =>
    input.superRefine(noNull(['title', 'emailDomains', 'hostname', 'sso', 'ai', 'inviteLinks', 'mergeRules'])),
  payload: OrganizationPayload,
  run: async ({ organizationId, defaultContentSiteId, ...changes }, ctx) => {
    const body = restBody(
      {
        ...changes,
        defaultContent:
          defaultContentSiteId == null ? defaultContentSiteId : { type: 'site', site: defaultContentSiteId },
      },
      { clearable: ['defaultRole', 'defaultContent', 'logo'], required: 'Give at least one field to change' },
    );
    const organization = await updateOrganization(ctx.api, organizationId, body);
    prime(OrganizationNode, ctx, [organization]);
    return { organization };
  },
});

declareMutation('deleteOrganizationInvite', {
  description: 'Revokes an invite link of an organization (admins).',
  input: 'The invite link to revoke.',
  fields: {
    organizationId: organizationIdField,
    inviteId: inputField('ID', 'Id of the invite link.', z.string().trim().min(1, 'is required')),
  },
  payload: (name) => deletedPayload(name, 'True when the invite link was deleted, false when it did not exist.'),
  run: (i, ctx) => deleteOrganizationInvite(ctx.api, i.organizationId, i.inviteId),
});

declareMutation('joinOrganization', {
  description: 'Joins an organization that accepts your verified e-mail domain.',
  extensions: upstream.fetch(2),
  input: 'The organization to join.',
  fields: { organizationId: organizationIdField },
  payload: OrganizationPayload,
  run: async (i, ctx) => {
    await joinOrganization(ctx.api, i.organizationId);
    return { organization: await getOrganization(ctx.api, i.organizationId) };
  },
});

declareMutation('updateAgentInstructions', {
  description: 'Replaces the instructions given to the AI agents of an organization (admins).',
  input: 'The new instructions.',
  fields: {
    organizationId: organizationIdField,
    instructions: inputField(DocumentInput, 'The instructions.', documentInput),
  },
  payload: (name) =>
    objectPayload(name, 'agentInstructions', AgentInstructionsType, 'The instructions after the change.'),
  run: async (i, ctx) => {
    const instructions = await updateAgentInstructions(ctx.api, i.organizationId, i.instructions);
    return { agentInstructions: { ...instructions, organizationId: i.organizationId } };
  },
});
