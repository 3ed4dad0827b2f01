import { describe, expect, it } from 'vitest';
import {
  agglomerate,
  agglomerateSteps,
  clusterCentroid,
  nearestCluster,
  SIMILARITY_THRESHOLD,
  type Clusterable,
} from '../../src/platform/conversations/text/cluster.js';
import { runInSlices, type Steps } from '../../src/platform/slices.js';
import {
  addWords,
  byCentrality,
  clusterIcon,
  clusterLabel,
  type WordForms,
} from '../../src/platform/conversations/text/describe.js';
import { clusterImpact, impactOf, impactSignals } from '../../src/platform/conversations/text/impact.js';
import { sentences, shorten } from '../../src/platform/conversations/text/sentences.js';
import { splitIssues, splitIssuesSteps } from '../../src/platform/conversations/text/split.js';
import { termCounts, tokenize } from '../../src/platform/conversations/text/terms.js';
import { Corpus, cosine } from '../../src/platform/conversations/text/vectors.js';
import { weeklyPulse } from '../../src/platform/conversations/pulse.js';
import { ISSUE_CORPUS, type CorpusIssue } from '../fixtures/issue-corpus.js';

// The conversation text pipeline without HTTP or SQL: sentences, terms, impact, the split of a
// conversation into issues, TF-IDF vectors, clustering (on a fixed corpus of 100 issues) and what
// describes a cluster.

/** Vectors of issues over their own corpus. */
function vectorsOf(issues: ReadonlyArray<{ id: string; text: string }>): Array<Clusterable & { text: string }> {
  const counts = issues.map((issue) => termCounts(issue.text));
  const corpus = new Corpus(counts);
  return issues.map((issue, index) => ({ id: issue.id, text: issue.text, vector: corpus.vector(counts[index]!) }));
}

const topicOf = new Map(ISSUE_CORPUS.map((issue) => [issue.id, issue.topic]));

describe('sentences', () => {
  it('cuts messages into sentences, paragraphs and list items, without quotes and signatures', () => {
    const text = [
      'Hi team! The installer fails, e.g. with v1.2 on macOS. Any idea?',
      '',
      'Steps:',
      '- run the installer',
      '- open the app',
      '> On Monday you wrote:',
      '> something quoted',
      'Thanks',
      '-- ',
      'Ada, Acme Corp',
    ].join('\n');
    expect(sentences(text)).toEqual([
      'Hi team!',
      'The installer fails, e.g. with v1.2 on macOS.',
      'Any idea?',
      'Steps:',
      'run the installer',
      'open the app',
      'Thanks',
    ]);
    expect(sentences('')).toEqual([]);
    // A run-on text is cut into bounded pieces.
    expect(sentences('word '.repeat(400)).every((sentence) => sentence.length <= 600)).toBe(true);
    expect(shorten('The installer fails with permission denied', 25)).toBe('The installer fails with…');
  });
});

describe('terms', () => {
  it('folds, stems and drops stop words, links and numbers (but keeps status codes)', () => {
    expect(
      tokenize(
        "Hi! I can't install the CLI: installing fails with EACCES (see https://example.com/log or me@example.com), 429 errors since 2024.",
      ),
    ).toEqual([
      { term: 'instal', word: 'install' },
      { term: 'cli', word: 'CLI' },
      { term: 'instal', word: 'installing' },
      { term: 'fail', word: 'fails' },
      { term: 'eacc', word: 'EACCES' },
      { term: '429', word: '429' },
      { term: 'error', word: 'errors' },
    ]);
    expect(tokenize('Café’s crème')).toEqual([
      { term: 'cafe', word: 'Café' },
      { term: 'creme', word: 'crème' },
    ]);
  });
});

describe('impact', () => {
  it('reads blocking words, repetition and data loss', () => {
    const impact = (text: string) => impactOf(impactSignals(text));
    expect(impact('The sidebar looks a bit cramped on small screens.')).toBe('low');
    expect(impact('We cannot log in at all.')).toBe('medium');
    expect(impact('The sync failed again this morning.')).toBe('medium');
    expect(impact('We still cannot publish, the build is blocked every time.')).toBe('high');
    expect(impact('After the merge our pages disappeared.')).toBe('high');
    expect(impact('We lost all our changes.')).toBe('high');
    expect(impactSignals('It’s still broken and we can’t deploy')).toEqual({
      blocking: true,
      repetition: true,
      dataLoss: false,
    });
  });

  it('gives a cluster the highest impact a quarter of its issues reach', () => {
    expect(clusterImpact([])).toBe('low');
    expect(clusterImpact(['high'])).toBe('high');
    expect(clusterImpact(['high', 'low', 'low', 'low'])).toBe('high');
    expect(clusterImpact(['high', 'low', 'low', 'low', 'low'])).toBe('low');
    expect(clusterImpact(['high', 'medium', 'low', 'low', 'low'])).toBe('medium');
    expect(clusterImpact(['medium', 'low', 'low', 'low', 'low', 'low', 'low', 'low', 'low'])).toBe('low');
  });
});

describe('splitting a conversation into issues', () => {
  it('finds one issue per distinct problem, not one per message or per sentence', () => {
    const issues = splitIssues({
      subject: 'Two things',
      parts: [
        {
          role: 'user',
          body: 'Hi team! The installer fails with EACCES permission denied on macOS. I ran it with sudo too.\n\nAlso, the search on our docs site returns no results for words that are on the page. Thanks!',
        },
        {
          role: 'assistant',
          body: 'Could you send the log of the installer? It will tell us why the search has no results.',
        },
        { role: 'user', body: 'Sure. It still fails with the same permission error. This is blocking our launch.' },
      ],
    });
    expect(issues.map((issue) => ({ title: issue.title, paragraphs: issue.paragraphs, impact: issue.impact }))).toEqual(
      [
        {
          title: 'The installer fails with EACCES permission denied on macOS.',
          paragraphs: [
            ['The installer fails with EACCES permission denied on macOS.', 'I ran it with sudo too.'],
            ['It still fails with the same permission error.', 'This is blocking our launch.'],
          ],
          // Blocking, and raised again in a later message.
          impact: 'high',
        },
        {
          title: 'The search on our docs site returns no results for words that are on the page.',
          paragraphs: [['Also, the search on our docs site returns no results for words that are on the page.']],
          impact: 'low',
        },
      ],
    );
    expect([...issues[0]!.terms.keys()]).toContain('eacc');
    expect(issues[1]!.terms.has('eacc')).toBe(false);
  });

  it('titles the only issue with the subject, and makes the subject the issue when the messages say nothing', () => {
    const [issue, ...others] = splitIssues({
      subject: 'Lost my page',
      parts: [{ role: 'user', body: 'I merged a change request and my whole page disappeared. How do I restore it?' }],
    });
    expect(others).toEqual([]);
    expect(issue).toMatchObject({
      title: 'Lost my page',
      paragraphs: [['I merged a change request and my whole page disappeared.']],
      impact: 'high',
    });
    // "How do I restore it?" says one word: it counts for the impact, not for the issue's words.
    expect(splitIssues({ subject: 'Search results empty', parts: [{ role: 'user', body: 'Hello?' }] })).toMatchObject([
      { title: 'Search results empty', paragraphs: [['Search results empty']] },
    ]);
  });

  it('finds nothing in small talk, and reads every message when no role is user', () => {
    expect(
      splitIssues({
        parts: [
          { role: 'user', body: 'Hello!' },
          { role: 'agent', body: 'Hi! How can we help?' },
          { role: 'user', body: 'Never mind, I found the answer in the docs. Thanks!' },
        ],
      }),
    ).toEqual([]);
    expect(splitIssues({ parts: [{ role: 'customer', body: 'Please add a dark mode to the editor.' }] })).toMatchObject(
      [{ title: 'Please add a dark mode to the editor.', impact: 'low' }],
    );
  });

  it('keeps at most eight issues', () => {
    const body = Array.from(
      { length: 12 },
      (_, index) => `Another problem: feature${'abcdefghijkl'[index]} widget${'abcdefghijkl'[index]} fails.`,
    ).join(' ');
    expect(splitIssues({ parts: [{ role: 'user', body }] })).toHaveLength(8);
  });
});

describe('vectors', () => {
  it('weighs rare terms more and compares by cosine', () => {
    const counts = ['search finds nothing', 'search index outdated', 'invoice charged twice'].map(termCounts);
    const corpus = new Corpus(counts);
    expect(corpus.idf('search')).toBeLessThan(corpus.idf('invoic'));
    const [a, b, c] = counts.map((count) => corpus.vector(count));
    expect(cosine(a!, a!)).toBeCloseTo(1, 10);
    expect(cosine(a!, b!)).toBeGreaterThan(0);
    expect(cosine(a!, c!)).toBe(0);
  });
});

describe('clustering the 100-issue corpus', () => {
  const items = vectorsOf(ISSUE_CORPUS);
  const groups = agglomerate(items);

  it('puts the eleven reports of each recurring problem together, and each one-off request alone', () => {
    expect(ISSUE_CORPUS).toHaveLength(100);
    const topics = groups.map((group) => [...new Set(group.map((id) => topicOf.get(id)))]);
    // No cluster mixes two problems.
    expect(topics.filter((names) => names.length > 1)).toEqual([]);
    // Each recurring problem is one cluster of eleven; each one-off request a cluster of its own.
    const sizes = Object.fromEntries(groups.map((group) => [topicOf.get(group[0]!), group.length]));
    expect(sizes).toEqual({
      install: 11,
      sso: 11,
      search: 11,
      gitsync: 11,
      billing: 11,
      pdf: 11,
      domain: 11,
      ratelimit: 11,
      ...Object.fromEntries(
        ISSUE_CORPUS.filter((issue) => issue.topic.startsWith('other')).map((issue) => [issue.topic, 1]),
      ),
    });
    expect(groups).toHaveLength(20);
  });

  it('is deterministic: the same clusters whatever the order of the issues', () => {
    const reversed = agglomerate([...items].reverse());
    const shuffled = agglomerate([...items].sort((a, b) => a.text.length - b.text.length || (a.id < b.id ? 1 : -1)));
    expect(reversed).toEqual(groups);
    expect(shuffled).toEqual(groups);
  });

  it('keeps the clusters over a range of thresholds around the chosen one, and merges or splits beyond', () => {
    for (const threshold of [SIMILARITY_THRESHOLD - 0.04, SIMILARITY_THRESHOLD + 0.04])
      expect(agglomerate(items, threshold)).toEqual(groups);
    // Every issue alone when nothing may merge; fewer, mixed clusters when anything sharing a word may.
    expect(agglomerate(items, 1.01)).toHaveLength(100);
    expect(agglomerate(items, 0.02).length).toBeLessThan(20);
  });

  it('assigns new issues to the cluster of their problem, and unrelated ones to none', () => {
    const clusters = groups.map((group) => ({
      id: topicOf.get(group[0]!)!,
      centroid: clusterCentroid(items.filter((item) => group.includes(item.id))),
    }));
    const fresh: CorpusIssue[] = [
      { id: 'new-1', topic: 'install', text: 'The installer stops with EACCES permission denied on our new laptop.' },
      { id: 'new-2', topic: 'sso', text: 'SSO login fails again: the SAML signature is invalid.' },
      { id: 'new-3', topic: 'pdf', text: 'Images are missing from the PDF export.' },
      { id: 'new-4', topic: 'ratelimit', text: 'API requests fail with 429, we hit the rate limit.' },
      { id: 'new-5', topic: 'none', text: 'Could you support a Klingon locale for the interface?' },
    ];
    const vectors = vectorsOf([...ISSUE_CORPUS, ...fresh]).slice(ISSUE_CORPUS.length);
    expect(vectors.map((vector) => nearestCluster(vector.vector, clusters)?.id ?? 'none')).toEqual(
      fresh.map((issue) => issue.topic),
    );
  });

  it('labels clusters with their top terms and picks icons from them', () => {
    const described = Object.fromEntries(
      groups
        .filter((group) => group.length > 1)
        .map((group) => {
          const members = items.filter((item) => group.includes(item.id));
          const centroid = clusterCentroid(members);
          const forms: WordForms = new Map();
          for (const member of members) addWords(forms, member.text);
          const central = byCentrality(members, centroid)[0]!;
          return [topicOf.get(group[0]!)!, `${clusterLabel(centroid, forms, central.text)} (${clusterIcon(centroid)})`];
        }),
    );
    expect(described).toEqual({
      billing: 'Charged twice, invoice (credit-card)',
      domain: 'Certificate custom domain (globe)',
      gitsync: 'Git sync, GitHub (code-branch)',
      install: 'Install, permission denied (download)',
      pdf: 'PDF export, images (file-export)',
      ratelimit: 'API, limit 429 (code)',
      search: 'Search, results, pages (magnifying-glass)',
      sso: 'SAML SSO, login (lock)',
    });
  });
});

describe('weekly pulse', () => {
  it('counts issues per week over thirteen weeks, oldest first', () => {
    const now = Date.parse('2025-06-30T12:00:00Z');
    const daysAgo = (days: number) => new Date(now - days * 24 * 60 * 60 * 1000).toISOString();
    expect(
      weeklyPulse(
        [daysAgo(0), daysAgo(6.9), daysAgo(7), daysAgo(90), daysAgo(91), daysAgo(200), daysAgo(-1), 'not a date'],
        now,
      ),
    ).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3]);
  });
});

describe('work in steps', () => {
  it('runs the same clustering a slice at a time, giving the event loop turns between slices', async () => {
    const items: Clusterable[] = [
      'login sso saml',
      'login saml error',
      'pdf export broken',
      'export pdf blank',
      'invoice email',
    ].map((text, index) => ({
      id: `i${index}`,
      vector: new Map(text.split(' ').map((term) => [term, 1 / Math.sqrt(3)])),
    }));
    expect(await runInSlices(agglomerateSteps(items))).toEqual(agglomerate(items));
    const conversation = {
      subject: 'SSO',
      parts: [
        { role: 'user', body: 'The SAML login fails with an error. Also, the PDF export is blank since Monday.' },
      ],
    };
    expect(await runInSlices(splitIssuesSteps(conversation))).toEqual(splitIssues(conversation));

    let turns = 0;
    const counting = setInterval(() => (turns += 1), 0);
    function* busy(): Steps<number> {
      for (let step = 0; step < 20; step += 1) {
        const until = performance.now() + 2;
        while (performance.now() < until);
        yield;
      }
      return 20;
    }
    try {
      expect(await runInSlices(busy(), 5)).toBe(20);
    } finally {
      clearInterval(counting);
    }
    // 40 ms of work in slices of 5 ms: other callbacks ran in between.
    expect(turns).toBeGreaterThan(0);
  });
});
