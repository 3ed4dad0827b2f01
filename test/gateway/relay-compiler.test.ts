import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

// What a Relay app writes against the graph: a paginated, refetchable list, and mutations that
// update the store without hand-written updaters (new edges in, deleted records and edges out).
const APP = `import { graphql } from 'relay-runtime';

export const organization = graphql\`
  fragment RelayApp_organization on Organization
  @refetchable(queryName: "RelayAppSpacesPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" }) {
    spaces(first: $count, after: $cursor) @connection(key: "RelayApp_spaces") {
      __id
      totalCount
      edges { node { id title } }
    }
  }
\`;

export const page = graphql\`
  query RelayAppOrganizationQuery($id: ID!) {
    organization(id: $id) { ...RelayApp_organization }
  }
\`;

export const createSpace = graphql\`
  mutation RelayAppCreateSpaceMutation($input: CreateSpaceInput!, $connections: [ID!]!) {
    createSpace(input: $input) {
      spaceEdge @appendEdge(connections: $connections) { cursor node { id title } }
      userErrors { message }
    }
  }
\`;

export const deleteSpace = graphql\`
  mutation RelayAppDeleteSpaceMutation($input: DeleteSpaceInput!) {
    deleteSpace(input: $input) { deleted deletedId @deleteRecord userErrors { message } }
  }
\`;

export const removeSpace = graphql\`
  mutation RelayAppRemoveSpaceMutation($input: DeleteSpaceInput!, $connections: [ID!]!) {
    deleteSpace(input: $input) { deletedId @deleteEdge(connections: $connections) userErrors { message } }
  }
\`;

export const createChangeRequest = graphql\`
  mutation RelayAppCreateChangeRequestMutation($input: CreateChangeRequestInput!, $connections: [ID!]!) {
    createChangeRequest(input: $input) {
      changeRequestEdge @prependEdge(connections: $connections) { cursor node { id subject status } }
      userErrors { message }
    }
  }
\`;

export const createTeam = graphql\`
  mutation RelayAppCreateTeamMutation($input: CreateTeamInput!, $connections: [ID!]!) {
    createTeam(input: $input) {
      teamEdge @appendEdge(connections: $connections) { cursor node { id title } }
      userErrors { message }
    }
  }
\`;
`;

/** Mistakes the compiler must refuse, so that a compilation that passes means something. */
const BROKEN: Record<string, { source: string; error: RegExp }> = {
  'an edge directive on an object that is no edge': {
    source: `mutation RelayAppBrokenMutation($input: CreateSpaceInput!, $connections: [ID!]!) {
      createSpace(input: $input) { space @appendEdge(connections: $connections) { id title } }
    }`,
    error: /Unsupported use of @appendEdge on field 'space', expected an edge field/,
  },
  '@deleteRecord on a field that is no ID': {
    source: `mutation RelayAppBrokenMutation($input: DeleteSpaceInput!) {
      deleteSpace(input: $input) { deleted @deleteRecord }
    }`,
    error: /Invalid use of @deleteRecord on field 'deleted'. Expected field type 'ID'/,
  },
};

const relayCompiler = createRequire(import.meta.url)('relay-compiler') as string | null;
const schemaFile = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

let g: TestGateway;
let project: string;

beforeAll(async () => {
  g = await startTestGateway();
  project = mkdtempSync(join(tmpdir(), 'relay-app-'));
});

afterAll(async () => {
  rmSync(project, { recursive: true, force: true });
  await g?.destroy();
});

/** Writes a Relay project of `files` (over the gateway's schema.graphql) and runs the compiler on it. */
function compile(name: string, files: Record<string, string>) {
  const root = join(project, name);
  mkdirSync(join(root, 'src'), { recursive: true });
  copyFileSync(schemaFile, join(root, 'schema.graphql'));
  writeFileSync(
    join(root, 'relay.config.json'),
    JSON.stringify({
      src: './src',
      schema: './schema.graphql',
      language: 'typescript',
      customScalarTypes: { DateTime: 'string', JSON: 'unknown', Upload: 'unknown' },
    }),
  );
  for (const [file, text] of Object.entries(files)) writeFileSync(join(root, 'src', file), text);
  const run = spawnSync(relayCompiler!, [], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, root };
}

/** The operation text the compiler made for `operation`: what a Relay app sends to the gateway. */
function operationText(root: string, operation: string): string {
  const artifact = readFileSync(join(root, 'src', '__generated__', `${operation}.graphql.ts`), 'utf8');
  const text = /"text": ("(?:[^"\\]|\\.)*")/.exec(artifact)?.[1];
  if (!text) throw new Error(`No operation text in the artifact of ${operation}`);
  return JSON.parse(text) as string;
}

/** Runs the compiled `operation` against the gateway, as the Relay app would send it. */
async function send(root: string, operation: string, variables: Record<string, unknown>) {
  const result = await g.gql(operationText(root, operation), variables);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data as any;
}

describe('the Relay compiler', () => {
  it('runs here from node_modules', () => {
    expect(relayCompiler, 'a relay-compiler binary for this platform').not.toBeNull();
    const version = spawnSync(relayCompiler!, ['--version'], { encoding: 'utf8' });
    expect(version.stdout).toMatch(/^Relay Compiler \d+\.\d+\.\d+/);
  });

  it('compiles connections, refetchable fragments and declarative mutations against schema.graphql', () => {
    const { status, output } = compile('app', { 'RelayApp.ts': APP });
    expect(output).not.toMatch(/ERROR|WARN/);
    expect(status, output).toBe(0);
  });

  it.each(Object.entries(BROKEN))('refuses %s', (_name, broken) => {
    const source = `${APP}\nexport const broken = graphql\`${broken.source}\`;\n`;
    const { status, output } = compile(`broken-${Object.keys(BROKEN).indexOf(_name)}`, { 'RelayApp.ts': source });
    expect(status).not.toBe(0);
    expect(output).toMatch(broken.error);
  });

  it('sends operations the gateway answers with the payloads the directives need', async () => {
    const { status, root } = compile('app-run', { 'RelayApp.ts': APP });
    expect(status).toBe(0);
    // Relay's connection ids are client-side: the server never sees `$connections`.
    const connections = ['client:acme:spaces'];
    const org = (await g.gql(`{ organization(id: "acme") { id } }`)).data.organization.id;

    const first = await send(root, 'RelayAppOrganizationQuery', { id: 'acme' });
    expect(first.organization.spaces.edges).toHaveLength(2);
    const next = await send(root, 'RelayAppSpacesPaginationQuery', {
      id: org,
      count: 2,
      cursor: first.organization.spaces.pageInfo.endCursor,
    });
    expect(next.node.spaces.edges.map((edge: any) => edge.node.id)).not.toContain(
      first.organization.spaces.edges[1].node.id,
    );

    const created = await send(root, 'RelayAppCreateSpaceMutation', {
      input: { organizationId: 'acme', title: 'Relay app' },
      connections,
    });
    expect(created.createSpace.spaceEdge).toEqual({
      cursor: expect.any(String),
      node: { id: expect.any(String), title: 'Relay app' },
    });
    const space = created.createSpace.spaceEdge.node;
    const removed = await send(root, 'RelayAppRemoveSpaceMutation', { input: { spaceId: space.id }, connections });
    // The record Relay removes from its connections is the one the create appended.
    expect(removed.deleteSpace.deletedId).toBe(space.id);

    const other = await send(root, 'RelayAppCreateSpaceMutation', {
      input: { organizationId: 'acme', title: 'Relay app 2' },
      connections,
    });
    const deleted = await send(root, 'RelayAppDeleteSpaceMutation', {
      input: { spaceId: other.createSpace.spaceEdge.node.id },
    });
    expect(deleted.deleteSpace).toMatchObject({ deleted: true, deletedId: other.createSpace.spaceEdge.node.id });

    const request = await send(root, 'RelayAppCreateChangeRequestMutation', {
      input: { spaceId: g.platform.spaceId('Getting started'), subject: 'From a Relay app' },
      connections,
    });
    expect(request.createChangeRequest.changeRequestEdge.node).toMatchObject({ subject: 'From a Relay app' });
    const team = await send(root, 'RelayAppCreateTeamMutation', {
      input: { organizationId: 'acme', title: 'Relay app' },
      connections,
    });
    expect(team.createTeam.teamEdge.node).toMatchObject({ title: 'Relay app' });
  });
});
