import { setCurrentRevision } from '../content/current.js';
import { markdownToDocument } from '../../document/markdown.js';
import { putDocument, storeRevision, type RevisionContent } from '../content/revisions.js';
import { laterThan, newId } from '../http.js';
import type { Db } from '../store/db.js';
import { textHash } from './parse.js';

/**
 * The demo OpenAPI specification of Acme, `acme-petstore`: a small pet store API in YAML
 * (OpenAPI 3.1) with two versions (the second adds deleting a pet and a store tag operation),
 * and a space, "Petstore API", whose content is an overview page and a computed page that
 * generates the API reference from the specification.
 */

export const DEMO_SPEC_SLUG = 'acme-petstore';
export const DEMO_SPEC_SPACE = 'Petstore API';

const INFO_AND_TAGS = `openapi: 3.1.0
info:
  title: Acme Petstore
  version: VERSION
  description: |
    The pets of the Acme store, their owners and the orders that bring them home.

    Every request needs an API key in the \`X-Api-Key\` header.
servers:
  - url: https://petstore.acme.test/v1
security:
  - apiKey: []
tags:
  - name: pets
    x-displayName: Pets
    description: Everything about the pets of the store.
  - name: store
    x-displayName: Store
    description: Orders of pets.
`;

const PATHS_V1 = `paths:
  /pets:
    get:
      tags: [pets]
      operationId: listPets
      summary: List pets
      parameters:
        - name: limit
          in: query
          description: How many pets to list, at most 100.
          schema: { type: integer, minimum: 1, maximum: 100 }
      responses:
        '200':
          description: A page of pets.
          content:
            application/json:
              schema:
                type: array
                items: { $ref: '#/components/schemas/Pet' }
    post:
      tags: [pets]
      operationId: createPet
      summary: Add a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/NewPet' }
      responses:
        '201':
          description: The pet added.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        required: true
        schema: { type: string }
    get:
      tags: [pets]
      operationId: getPet
      summary: Get a pet
      responses:
        '200':
          description: The pet.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
        '404':
          description: No such pet.
  /store/orders:
    post:
      tags: [store]
      operationId: placeOrder
      summary: Place an order
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Order' }
      responses:
        '201':
          description: The order placed.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Order' }
  /health:
    get:
      operationId: health
      summary: Check the service
      security: []
      responses:
        '204':
          description: The service is up.
`;

const DELETE_PET = `    delete:
      tags: [pets]
      operationId: deletePet
      summary: Remove a pet
      responses:
        '204':
          description: The pet was removed.
`;

const COMPONENTS = `components:
  securitySchemes:
    apiKey:
      type: apiKey
      in: header
      name: X-Api-Key
  schemas:
    NewPet:
      type: object
      required: [name]
      properties:
        name: { type: string, description: The name of the pet. }
        tag: { type: string, description: A free label, such as the species. }
    Pet:
      allOf:
        - $ref: '#/components/schemas/NewPet'
        - type: object
          required: [id]
          properties:
            id: { type: string, description: The pet's identifier. }
    Order:
      type: object
      required: [petId, quantity]
      properties:
        id: { type: string, readOnly: true }
        petId: { type: string }
        quantity: { type: integer, minimum: 1 }
        status: { type: string, enum: [placed, approved, delivered] }
`;

/** The text of the first version of the demo specification. */
export const DEMO_SPEC_V1 = `${INFO_AND_TAGS.replace('VERSION', '1.0.0')}${PATHS_V1}${COMPONENTS}`;

/** The text of the second version: deleting a pet is added. */
export const DEMO_SPEC_V2 = `${INFO_AND_TAGS.replace('VERSION', '1.1.0')}${PATHS_V1.replace('          description: No such pet.\n', `          description: No such pet.\n${DELETE_PET}`)}${COMPONENTS}`;

const OVERVIEW = `# Overview

The Acme Petstore API manages the pets of the store and their orders. The reference below is generated from its OpenAPI specification, \`${DEMO_SPEC_SLUG}\`: it follows every new version of the specification.
`;

/**
 * Seeds the demo specification (two versions, processed: both texts are valid, which the tests
 * check with the parser) and the content of its space: an overview page and the computed API
 * reference. Synchronous, inside the demo transaction: no processing job is needed.
 */
export function seedDemoOpenAPI(db: Db, orgId: string, spaceId: string, createdAt: string): void {
  const specId = newId();
  const secondAt = laterThan(new Date(Date.parse(createdAt) + 20 * 24 * 60 * 60 * 1000).toISOString());
  const versions = [
    { id: newId(), text: DEMO_SPEC_V1, at: createdAt },
    { id: newId(), text: DEMO_SPEC_V2, at: secondAt },
  ];
  const last = versions[versions.length - 1]!;
  db.prepare(
    `INSERT INTO openapi_specs (id, org_id, slug, source_url, source_text, generation, visibility, processing_state, last_version, last_processed_at,
       error_count, created_at, updated_at)
     VALUES (?, ?, ?, NULL, ?, 1, 'public', 'complete', ?, ?, 0, ?, ?)`,
  ).run(specId, orgId, DEMO_SPEC_SLUG, last.text, last.id, last.at, createdAt, last.at);
  const insertVersion = db.prepare(
    'INSERT INTO openapi_spec_versions (id, spec_id, seq, text, format, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  versions.forEach((version, index) => {
    insertVersion.run(version.id, specId, index + 1, version.text, 'yaml', textHash(version.text), version.at);
  });

  const parent = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  const content: RevisionContent = {
    pages: [
      {
        id: newId(),
        type: 'document',
        title: 'Overview',
        slug: 'overview',
        documentId: putDocument(db, spaceId, markdownToDocument(OVERVIEW).document),
        pages: [],
      },
      {
        id: newId(),
        type: 'computed',
        title: 'API reference',
        computed: {
          type: 'builtin:openapi',
          props: { models: true, downloadLink: true },
          dependencies: { spec: { ref: { kind: 'openapi', spec: DEMO_SPEC_SLUG } } },
        },
        pages: [],
      },
    ],
    files: [],
    reusableContents: [],
    variables: {},
  };
  setCurrentRevision(
    db,
    spaceId,
    storeRevision(db, { spaceId, type: 'edits', parents: [parent], content, createdAt: secondAt }),
  );
}
