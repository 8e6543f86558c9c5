import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceRoot } from '../workspace-root.js';
import {
  headingAnchor,
  headingAnchors,
  markdownFiles,
  markdownReferences,
  outsideDesignMentions,
  sectionReferences,
  sourceFiles,
} from './doc-references.js';
import type { DocReference } from './doc-references.js';

const documents = markdownFiles(workspaceRoot);
const sources = sourceFiles(workspaceRoot);

const anchorsOf = new Map<string, Set<string>>();
const anchors = (target: string): Set<string> => {
  let found = anchorsOf.get(target);
  if (found === undefined) {
    found = headingAnchors(readFileSync(join(workspaceRoot, target), 'utf8'));
    anchorsOf.set(target, found);
  }
  return found;
};

/** The references that do not hold, as `from:line → target#anchor` lines. */
const broken = (references: readonly DocReference[]): string[] =>
  references
    .filter((reference) => {
      const path = join(workspaceRoot, reference.target);
      if (!existsSync(path)) return true;
      if (reference.anchor === undefined || !reference.target.endsWith('.md')) return false;
      return !anchors(reference.target).has(reference.anchor);
    })
    .map(
      ({ from, line, target, anchor }) => `${from}:${String(line)} → ${target}${anchor ? `#${anchor}` : ''}`,
    );

describe('references in the documentation', () => {
  it('finds the documents: every package README, docs/*.md and the root README', () => {
    expect(documents).toEqual(
      expect.arrayContaining(['README.md', 'docs/ARCHITECTURE.md', 'libs/idempotency/README.md']),
    );
  });

  it('every relative link and every repository path in code spans exists, headings included', () => {
    expect(broken(documents.flatMap((file) => markdownReferences(workspaceRoot, file)))).toEqual([]);
  });

  it('every comment that points to a section of a document names a heading that exists', () => {
    const references = sources.flatMap((file) => sectionReferences(workspaceRoot, file));
    expect(references.length).toBeGreaterThan(0);
    expect(broken(references)).toEqual([]);
  });

  it('nothing points to a design document outside the repository', () => {
    const mentions = [...documents, ...sources].flatMap((file) => outsideDesignMentions(workspaceRoot, file));
    expect(mentions.map(({ from, line }) => `${from}:${String(line)}`)).toEqual([]);
  });

  it('every package has a README that places it in docs/ARCHITECTURE.md', () => {
    const packages = ['apps', 'libs', 'tools', 'examples'].flatMap((folder) =>
      readdirSync(join(workspaceRoot, folder), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${folder}/${entry.name}`),
    );
    const placed = (folder: string): boolean =>
      markdownReferences(workspaceRoot, `${folder}/README.md`).some(
        (reference) => reference.target === 'docs/ARCHITECTURE.md',
      );
    const unplaced = packages.filter(
      (folder) => !existsSync(join(workspaceRoot, folder, 'README.md')) || !placed(folder),
    );
    expect(unplaced).toEqual([]);
  });

  it('the root README links the architecture, performance, scaling and benchmark documents', () => {
    const linked = new Set(
      markdownReferences(workspaceRoot, 'README.md').map((reference) => reference.target),
    );
    const documentsLinked = ['ARCHITECTURE', 'PERFORMANCE', 'SCALING', 'BENCHMARKS'].map(
      (name) => `docs/${name}.md`,
    );
    expect(documentsLinked.filter((document) => !linked.has(document))).toEqual([]);
  });

  it('a link that does not resolve is reported, with its line', () => {
    const sample = 'docs/ARCHITECTURE.md';
    const missing: DocReference = { from: sample, line: 3, target: 'docs/NOT-THERE.md' };
    const missingHeading: DocReference = { from: sample, line: 4, target: sample, anchor: 'no-such-heading' };
    expect(broken([missing, missingHeading])).toEqual([
      'docs/ARCHITECTURE.md:3 → docs/NOT-THERE.md',
      'docs/ARCHITECTURE.md:4 → docs/ARCHITECTURE.md#no-such-heading',
    ]);
  });

  it('anchors follow GitHub: lower case, punctuation dropped, spaces as hyphens', () => {
    expect(headingAnchor('Webhooks: the outbox and the inboxes')).toBe('webhooks-the-outbox-and-the-inboxes');
    expect(headingAnchor('The walk: `POST /invoices/:id/payments` with a card')).toBe(
      'the-walk-post-invoicesidpayments-with-a-card',
    );
    expect([...headingAnchors('# One\n```\n# not a heading\n```\n## Two')]).toEqual(['one', 'two']);
  });
});
