/**
 * Every mutation that takes an id, given a well-formed id of nothing, answers one user error
 * (never a top-level error) whose `field` is the path of that id in the input and whose message
 * names it as the client wrote it; a delete may instead answer that it deleted nothing. The
 * mutations and their id inputs come from the schema, so a new mutation is covered as soon as it
 * exists: its input is made from its required fields (and `EXTRA`), with valid ids of an
 * organization the test builds (one of each kind of thing an id names), and each id of it in turn
 * is replaced by one of nothing (a global ID keeps its parents).
 */
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import {
  buildSchema,
  getNamedType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { defaultCustomization } from '../../src/platform/sites/customization.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalWoff2 } from '../../src/platform/fonts/woff.js';
import { storeUploaded } from '../../src/platform/fonts/store.js';
import { changeRequest, ingestConversations } from '../fixtures/change-requests.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { addLinkInvite } from '../fixtures/wide.js';

const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

/** A well-formed id that names nothing: a platform id's alphabet and length. */
const UNKNOWN = 'Unknown0000000000000';

/** The organization the inputs' ids come from, and the names of its integrations (public, and private to sites). */
const ORG = 'checked';
const INTEGRATIONS = { public: 'checked-embeds', private: 'checked-analytics' };
const SITES = { docs: 'Checked docs', partners: 'Checked partner portal' };

/**
 * Mutations, or id inputs of them, left out, each with why. Everything else with an id input is
 * checked.
 */
const EXCEPTIONS: Record<string, string> = {
  // Multipart only (a file part): made by the upload tests.
  uploadFile: 'takes a file part, which a JSON request cannot send',
  // The conversation ids are the client's own, given to name what it ingests: none is unknown.
  'ingestConversations.conversations.0.id': 'a new conversation gets the id given',
};

let g: TestGateway;
/** Valid values of id inputs, by input field name (or `mutation.field` where it differs). */
let ids: Record<string, string>;
/** The organization's invite link. */
let inviteId: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  await buildOrganization(addOrg(g.platform, { id: ORG, members: { admin: 'admin', ben: 'edit' } }));
  ids = await organizationIds();
});
afterAll(() => g.destroy());

const ok = (query: string, variables: Record<string, unknown> = {}) => expectOk<any>(g, query, variables);

/**
 * One of each thing an input's id names: a team, a collection, a font, an OpenAPI specification, a SAML
 * provider, a translation, an issue cluster, a change request with a page, a site with a space, a section, a
 * section group and a redirect, a share-link site with a share link, an installation of a public integration
 * and one of a site integration, and a link invite.
 */
async function buildOrganization(org: TestOrg): Promise<void> {
  const handbook = await org.space('Handbook');
  const partners = await org.space('Partner guide');
  await org.collection('Guides');
  await org.team('Writers', ['ben']);
  await ingestConversations(org, [
    { id: 'chat-1', messages: ['The installer fails with permission denied on macOS.'] },
  ]);
  await changeRequest(org, handbook, { status: 'open', pages: ['# Welcome\n\nWhere to start.\n'] });

  const bytes = minimalWoff2('Checked Sans', 400);
  const reserved = await g.platform.api('POST', `/orgs/${ORG}/storage/upload`, {
    body: { file: { name: '400.woff2', type: 'font/woff2', size: bytes.length }, kind: 'customization_font' },
  });
  const put = await fetch(reserved.body.url, {
    method: 'PUT',
    headers: { 'content-type': 'font/woff2' },
    body: new Uint8Array(bytes),
  });
  expect(put.status).toBe(200);
  const font = await g.platform.api('PUT', `/orgs/${ORG}/fonts`, {
    body: { fontFamily: 'Checked Sans', fontFaces: [{ weight: 400, storageKey: reserved.body.key }] },
  });
  expect(font.status).toBe(201);
  expect((await g.platform.api('POST', `/orgs/${ORG}/saml`, { body: { label: 'Partner IdP' } })).status).toBe(201);

  const spaces = await ok(`{ handbook: space(id: "${handbook}") { id } partners: space(id: "${partners}") { id } }`);
  await ok(
    `mutation ($space: ID!) { createTranslation(input: { organizationId: "${ORG}", language: FR, source: { spaceId: $space, language: EN } }) { userErrors { code message } } }`,
    { space: spaces.handbook.id },
  );
  await ok(
    `mutation { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "checked-spec", source: { text: "openapi: 3.1.0\\ninfo:\\n  title: Checked\\n  version: '1'\\npaths: {}\\n" } }) { userErrors { code message } } }`,
  );

  const docs = await ok(
    `mutation { createSite(input: { organizationId: "${ORG}", title: "${SITES.docs}" }) { site { id } userErrors { code message } } }`,
  );
  const docsId = docs.createSite.site.id;
  await ok(
    `mutation ($site: ID!, $space: ID!) {
      addSpaceToSite(input: { siteId: $site, spaceId: $space }) { userErrors { code message } }
    }`,
    { site: docsId, space: spaces.handbook.id },
  );
  await ok(
    `mutation ($site: ID!, $space: ID!) {
      createSiteSection(input: { siteId: $site, spaceId: $space, title: "Partners" }) { userErrors { code message } }
      createSiteSectionGroup(input: { siteId: $site, title: "Guides" }) { userErrors { code message } }
      createSiteRedirect(input: { siteId: $site, source: "/old", destination: { url: "https://example.test/new" } }) { userErrors { code message } }
      addExternalLinkToSite(input: { siteId: $site, title: "Status", url: "https://status.example.test" }) { userErrors { code message } }
    }`,
    { site: docsId, space: spaces.partners.id },
  );
  const portal = await ok(
    `mutation { createSite(input: { organizationId: "${ORG}", title: "${SITES.partners}" }) { site { id } userErrors { code message } } }`,
  );
  await ok(
    `mutation ($site: ID!) { createSiteShareLink(input: { siteId: $site, name: "Partners" }) { userErrors { code message } } }`,
    { site: portal.createSite.site.id },
  );

  for (const [name, visibility, target] of [
    [INTEGRATIONS.public, 'PUBLIC', 'ALL'],
    [INTEGRATIONS.private, 'PRIVATE', 'SITE'],
  ] as const) {
    await ok(`mutation {
      publishIntegration(input: { name: "${name}", organizationId: "${ORG}", title: "${name}", description: "Checked.",
        script: "export default {}", scopes: [], visibility: ${visibility}, target: ${target} }) { userErrors { code message } }
      installIntegration(input: { integrationName: "${name}", organizationId: "${ORG}" }) { userErrors { code message } }
    }`);
  }
  const comment = await ok(
    `mutation ($space: ID!) { postComment(input: { spaceId: $space, body: { text: "Checked." } }) { comment { id } userErrors { code message } } }`,
    { space: spaces.handbook.id },
  );
  await ok(
    `mutation ($comment: ID!) { postCommentReply(input: { commentId: $comment, body: { text: "Checked." } }) { userErrors { code message } } }`,
    { comment: comment.postComment.comment.id },
  );
  inviteId = await addLinkInvite(org, 'admin');
  const file = storeUploaded(
    g.platform.db,
    ORG,
    'import_file',
    'checked.md',
    'text/markdown',
    Buffer.from('# Checked\n'),
  );
  await ok(
    `mutation ($space: ID!, $file: String!) {
      startImportRun(input: { organizationId: "${ORG}", spaceId: $space, files: [$file] }) { userErrors { code message } }
    }`,
    { space: handbook, file },
  );
  await g.platform.app.jobs.drain();
}

/** The ids of the organization the inputs are made of: global IDs, found through the graph. */
async function organizationIds(): Promise<Record<string, string>> {
  const result = await g.gql<any>(`{
    organization(id: "${ORG}") {
      teams(first: 1) { nodes { id } }
      collections(first: 1) { nodes { id } }
      fonts(first: 1) { nodes { id } }
      openApiSpecs(first: 1) { nodes { id } }
      samlProviders(first: 1) { nodes { id } }
      translations(first: 1) { nodes { id } }
      issuesClusters(first: 1) { nodes { id } }
      importRuns(first: 1) { nodes { id } }
      changeRequests(first: 1) { nodes { id space { id comments(first: 1) { nodes { id replies(first: 1) { nodes { id } } } } } content { pages { platformId } } } }
      sites(first: 10) { nodes { id title siteSpaces(first: 1) { nodes { id } } sections(first: 1) { nodes { id } } sectionGroups(first: 1) { nodes { id } } shareLinks(first: 1) { nodes { id } } redirects(first: 1) { nodes { id } }
        structure { ... on SiteSectionsStructure { items { ... on SiteExternalLink { id } } } } } }
    }
    publicIntegration: integration(name: "${INTEGRATIONS.public}") { installations(first: 1) { nodes { id } } }
    siteIntegration: integration(name: "${INTEGRATIONS.private}") { installations(first: 1) { nodes { id } } }
  }`);
  expect(result.errors).toBeUndefined();
  const org = result.data.organization;
  const first = (connection: { nodes: Array<{ id: string }> }) => connection.nodes[0]!.id;
  const sites = org.sites.nodes as any[];
  const docs = sites.find((site) => site.title === SITES.docs);
  const partners = sites.find((site) => site.title === SITES.partners);
  const userId = g.platform.userId('ben@example.test');
  return {
    organizationId: ORG,
    spaceId: org.changeRequests.nodes[0].space.id,
    changeRequestId: first(org.changeRequests),
    commentId: first(org.changeRequests.nodes[0].space.comments),
    replyId: first(org.changeRequests.nodes[0].space.comments.nodes[0].replies),
    collectionId: first(org.collections),
    teamId: first(org.teams),
    userId: encodeGlobalID('User', userId),
    fontId: first(org.fonts),
    specId: first(org.openApiSpecs),
    providerId: first(org.samlProviders),
    translationId: first(org.translations),
    clusterId: first(org.issuesClusters),
    siteId: docs.id,
    siteSpaceId: first(docs.siteSpaces),
    siteSectionId: first(docs.sections),
    siteSectionGroupId: first(docs.sectionGroups),
    itemId: first(docs.sections),
    shareLinkId: first(partners.shareLinks),
    redirectId: first(docs.redirects),
    siteExternalLinkId: docs.structure.items.find((item: { id?: string }) => item.id).id,
    installationId: first(result.data.publicIntegration.installations),
    'installIntegrationOnSite.installationId': first(result.data.siteIntegration.installations),
    'uninstallIntegrationFromSite.installationId': first(result.data.siteIntegration.installations),
    'updateIntegrationSiteInstallation.installationId': first(result.data.siteIntegration.installations),
    templateId: 'changelog',
    inviteId,
    importRunId: first(org.importRuns),
    pageId: org.changeRequests.nodes[0].content.pages[0].platformId,
  };
}

/** Values of required fields that are not ids, by name; otherwise one made from the type. */
const SCALARS: Record<string, unknown> = {
  title: 'Checked title',
  label: 'Checked',
  name: 'checked',
  slug: 'checked-spec',
  fontFamily: 'Checked',
  weight: 400,
  storageKey: 'checked-key',
  body: 'Hello.',
  role: 'user',
  commitMessage: 'Checked',
  ref: 'refs/heads/main',
  url: 'https://github.test/acme/handbook.git',
  description: 'Checked.',
  script: 'export default {}',
  integrationName: INTEGRATIONS.public,
  jsonSchema: { type: 'object', properties: {}, additionalProperties: false },
  source: '/checked',
  muted: true,
  markdown: '# Checked\n',
};

/** Stands for the valid id of the organization that the field's name calls for. */
const VALID_ID = Symbol('valid id');

/**
 * What some mutations need beside their required fields to get as far as the platform: a change
 * to make (updates refuse an empty one), a value the schema cannot require, or ids when every id
 * of the input is optional.
 */
const EXTRA: Record<string, Record<string, unknown>> = {
  addExternalLinkToSite: { siteId: VALID_ID },
  addSpaceToSite: { siteId: VALID_ID, spaceId: VALID_ID },
  createSiteSection: { siteId: VALID_ID, spaceId: VALID_ID, title: 'Checked' },
  createSiteSectionGroup: { siteId: VALID_ID },
  createSiteRedirect: { destination: { url: 'https://example.test/checked' } },
  updateSiteRedirect: { permanent: true },
  upsertSiteRedirects: { redirects: [{ source: '/checked', destination: { url: 'https://example.test/checked' } }] },
  createOrganizationInvite: { role: 'READ' },
  updateOrganizationInvite: { role: 'READ' },
  inviteUsersToOrganization: { emails: ['checked@example.test'] },
  createTranslation: { language: 'FR' },
  deleteOpenApiSpec: { specId: VALID_ID },
  editChangeRequestContent: { changes: [{ updatePage: { pageId: VALID_ID, markdown: '# Checked' } }] },
  inviteToCollection: { role: 'READ', userIds: [VALID_ID] },
  inviteToSpace: { role: 'READ', userIds: [VALID_ID] },
  inviteToSite: { role: 'READ', userIds: [VALID_ID] },
  updateSiteUserPermission: { role: 'READ' },
  updateSiteTeamPermission: { role: 'READ' },
  moveCollection: { parentId: null },
  moveSpace: { parentId: null },
  setOpenApiSpecVisibility: { specId: VALID_ID },
  transferSpace: { organizationId: VALID_ID },
  updateAgentInstructions: { instructions: { text: 'Be kind.' } },
  updateChangeRequest: { subject: 'Checked' },
  postComment: { spaceId: VALID_ID },
  updateComment: { resolved: true },
  updateCommentReply: { body: { text: 'Checked.' } },
  startImportRun: { url: 'https://example.test/', spaceId: VALID_ID },
  updateGlossary: { operations: [{ action: 'INSERT', terms: [{ language: 'EN', term: 'Checked' }] }] },
  overrideSiteSpaceCustomization: { overrides: { title: 'Checked' } },
  updateSiteCustomization: { settings: defaultCustomization({ title: 'Checked' }) },
  updateCollection: { title: 'Checked' },
  updateCollectionTeamPermission: { role: 'READ' },
  updateCollectionUserPermission: { role: 'READ' },
  updateCustomFont: { fontFamily: 'Checked' },
  updateIntegrationInstallation: { externalIds: ['checked'] },
  updateIntegrationSiteInstallation: { externalIds: ['checked'] },
  updateIntegrationSpaceInstallation: { externalIds: ['checked'] },
  updateMember: { role: 'READ' },
  updateOpenApiSpec: { organizationId: VALID_ID, slug: 'checked-spec' },
  updateOrganization: { title: 'Checked title' },
  updateSamlProvider: { label: 'Checked' },
  updateSite: { title: 'Checked title' },
  updateSiteExternalLink: { title: 'Checked' },
  updateSiteSection: { title: 'Checked' },
  updateSiteSectionGroup: { title: 'Checked' },
  updateSpaceTeamPermission: { role: 'READ' },
  updateSpaceUserPermission: { role: 'READ' },
  updateSiteShareLink: { name: 'Checked' },
  updateSiteSpace: { hidden: true },
  updateSpace: { title: 'Checked title' },
  updateTeamMembers: { add: ['ben@example.test'] },
  updateTranslation: { instructions: { text: 'Be kind.' } },
};

/** A value of `type` for the input field `name` of `mutation`, valid but for ids the test replaces. */
function sampleOf(mutation: string, name: string, type: GraphQLInputType): unknown {
  const nullable = isNonNullType(type) ? type.ofType : type;
  // The items of a list of ids (`userIds`) are ids of one (`userId`).
  if (isListType(nullable)) return [sampleOf(mutation, name.replace(/Ids$/, 'Id'), nullable.ofType)];
  const named = getNamedType(nullable);
  // Before the ids are read (collecting the cases), any id stands for them.
  if (named.name === 'ID') return ids?.[`${mutation}.${name}`] ?? ids?.[name] ?? UNKNOWN;
  if (isInputObjectType(named) && named.isOneOf) {
    // Exactly one field: the first.
    const [first] = Object.values(named.getFields());
    return { [first!.name]: sampleOf(mutation, first!.name, first!.type) };
  }
  if (isInputObjectType(named)) return requiredFields(mutation, named);
  if (isEnumType(named)) return named.getValues()[0]!.name;
  if (name in SCALARS) return SCALARS[name];
  if (named.name === 'Int' || named.name === 'Float') return 1;
  if (named.name === 'Boolean') return true;
  if (named.name === 'JSON') return {};
  return 'checked';
}

/** The required fields of an input object, each with a sample value. */
function requiredFields(mutation: string, type: GraphQLInputObjectType): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(type.getFields())
      .filter((field) => isNonNullType(field.type))
      .map((field) => [field.name, sampleOf(mutation, field.name, field.type)]),
  );
}

/** The paths of the id leaves of `value`, an input of `type`. */
function idPaths(value: unknown, type: GraphQLInputType, path: string[] = []): string[][] {
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable))
    return (value as unknown[]).flatMap((item, index) => idPaths(item, nullable.ofType, [...path, String(index)]));
  const named = getNamedType(nullable);
  if (named.name === 'ID') return [path];
  if (!isInputObjectType(named) || !value) return [];
  const fields = named.getFields();
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    idPaths(item, fields[key]!.type, [...path, key]),
  );
}

/** An id like `valid` that names nothing: a global ID with its own part replaced, or a platform id. */
function unknownLike(valid: string): string {
  try {
    const { typename, id } = decodeGlobalID(valid);
    if (/^[A-Z]\w+$/.test(typename) && encodeGlobalID(typename, id) === valid) {
      const parts = id.split('/');
      parts[parts.length - 1] = UNKNOWN;
      return encodeGlobalID(typename, parts.join('/'));
    }
  } catch {
    // Not a global ID: a platform id.
  }
  return UNKNOWN;
}

/** `input` with the value at `path` replaced by `value`. */
function replaced(input: unknown, path: readonly string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(input))
    return input.map((item, index) => (String(index) === head ? replaced(item, rest, value) : item));
  const object = input as Record<string, unknown>;
  return { ...object, [head]: replaced(object[head], rest, value) };
}

interface Case {
  mutation: string;
  /** Where the id is in the input. */
  path: string[];
}

const inputTypeOf = (mutation: string) =>
  getNamedType(
    schema
      .getMutationType()!
      .getFields()
      [mutation]!.args.find((arg) => arg.name === 'input')!.type,
  ) as GraphQLInputObjectType;

/** Every mutation with an id input, and each of its ids, from the schema. */
function cases(): Case[] {
  const all: Case[] = [];
  for (const field of Object.values(schema.getMutationType()!.getFields())) {
    if (EXCEPTIONS[field.name]) continue;
    const inputType = inputTypeOf(field.name);
    for (const path of idPaths(baseInput(field.name, inputType), inputType)) {
      if (!EXCEPTIONS[`${field.name}.${path.join('.')}`]) all.push({ mutation: field.name, path });
    }
  }
  return all;
}

/** The input of `mutation` with valid ids: its required fields and `EXTRA`. */
function baseInput(mutation: string, type: GraphQLInputObjectType): Record<string, unknown> {
  return withIds(mutation, { ...requiredFields(mutation, type), ...EXTRA[mutation] }) as Record<string, unknown>;
}

/** `value` with each `VALID_ID` replaced by the valid id its field calls for. */
function withIds(mutation: string, value: unknown, name = ''): unknown {
  if (value === VALID_ID) return ids?.[`${mutation}.${name}`] ?? ids?.[name] ?? UNKNOWN;
  if (Array.isArray(value)) return value.map((item) => withIds(mutation, item, name.replace(/Ids$/, 'Id')));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withIds(mutation, item, key)]));
  return value;
}

describe('user errors of an unknown id', () => {
  const all = cases();

  it('covers every mutation that takes an id, but the exceptions', () => {
    const takesId = (type: GraphQLInputType, seen = new Set<string>()): boolean => {
      const named = getNamedType(type);
      if (named.name === 'ID') return true;
      if (!isInputObjectType(named) || seen.has(named.name)) return false;
      seen.add(named.name);
      return Object.values(named.getFields()).some((field) => takesId(field.type, seen));
    };
    const expected = Object.values(schema.getMutationType()!.getFields())
      .filter((field) => !EXCEPTIONS[field.name] && field.args.some((arg) => takesId(arg.type)))
      .map((field) => field.name);
    expect([...new Set(all.map((c) => c.mutation))]).toEqual(expected);
  });

  it.each(all.map((c) => [`${c.mutation}(${c.path.join('.')})`, c] as const))('%s', async (_, { mutation, path }) => {
    const inputType = inputTypeOf(mutation);
    const base = baseInput(mutation, inputType);
    const valid = path.reduce<any>((value, key) => value[key], base) as string;
    const input = replaced(base, path, unknownLike(valid));
    const deletes = 'deleted' in (schema.getType(`${inputType.name.replace(/Input$/, 'Payload')}`) as any).getFields();
    const result = await g.gql<any>(
      `mutation ($input: ${inputType.name}!) { ${mutation}(input: $input) { ${deletes ? 'deleted' : ''} userErrors { code field message } } }`,
      { input },
    );
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    const payload = result.data[mutation];
    // Nothing to delete is no failure: a delete may say so with `deleted: false` (the platform's 204).
    if (deletes && payload.deleted === false && payload.userErrors.length === 0) return;
    expect(payload.userErrors, JSON.stringify({ input, payload })).toEqual([
      {
        code: expect.stringMatching(/^(NOT_FOUND|BAD_USER_INPUT)$/),
        field: path,
        message: expect.stringContaining(path.join('.')),
      },
    ]);
  });
});
