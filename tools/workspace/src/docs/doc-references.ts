import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Something a document or a comment points to in the repository, and where it says so. */
export interface DocReference {
  /** The file that points, relative to the workspace root. */
  readonly from: string;
  readonly line: number;
  /** The path pointed to, relative to the workspace root. */
  readonly target: string;
  /** A heading of the target (its GitHub anchor), when the reference names one. */
  readonly anchor?: string;
}

const skippedFolders = new Set(['node_modules', 'dist', '.git', '.nx', '.once', 'coverage', 'results']);

const walk = (root: string, folder: string, keep: (name: string) => boolean): string[] =>
  readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return skippedFolders.has(entry.name) ? [] : walk(root, path, keep);
    return keep(entry.name) ? [path] : [];
  });

/**
 * The documents whose references must hold: every README, `docs/*.md`, and the other Markdown pages beside the code.
 *
 * @example
 * markdownFiles(workspaceRoot); // ['README.md', 'apps/api/OPERATIONS.md', 'apps/api/README.md', …]
 */
export const markdownFiles = (root: string): string[] =>
  walk(root, '.', (name) => name.endsWith('.md'))
    .map((path) => relative('.', path))
    .sort();

/**
 * Source files whose comments may point to a document (`docs/ARCHITECTURE.md "The key log"`).
 *
 * @example
 * sourceFiles(workspaceRoot); // ['apps/api/src/app.ts', …, 'eslint.config.mjs']
 */
export const sourceFiles = (root: string): string[] =>
  ['apps', 'libs', 'tools', 'examples']
    .flatMap((folder) => walk(root, folder, (name) => /\.(ts|mts|js|mjs)$/.test(name)))
    .concat(['eslint.config.mjs'])
    .sort();

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export const headingAnchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/**
 * The anchors of a Markdown file's headings (outside code blocks).
 *
 * @example
 * headingAnchors('# The key log\n## Deterministic ids'); // Set { 'the-key-log', 'deterministic-ids' }
 */
export const headingAnchors = (markdown: string): Set<string> =>
  new Set(
    withoutCodeBlocks(markdown)
      .split('\n')
      .flatMap((line) => {
        const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
        return heading ? [headingAnchor(heading[1] as string)] : [];
      }),
  );

/** The text with fenced code blocks blanked (their lines kept, so line numbers stay right). */
const withoutCodeBlocks = (markdown: string): string =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));

const lineOf = (text: string, index: number): number => text.slice(0, index).split('\n').length;

const topFolders = /^(apps|libs|tools|examples|docs)\//;

/** A code span that names a repository path: no placeholders, globs or built output. */
const isRepositoryPath = (span: string): boolean =>
  topFolders.test(span) && /^[\w./@+-]+$/.test(span) && !/(^|\/)dist(\/|$)/.test(span);

/** A code span that names a file inside the document's package (`src/commands/command-handlers.ts`). */
const isPackageFile = (span: string): boolean =>
  !topFolders.test(span) && /^[\w@+-][\w./@+-]*\/[\w.@+-]+\.(ts|mjs|js|json|md|sh|yml)$/.test(span);

/** A package file as written beside the document, or under its `src/`; the first that exists (else the first). */
const packageFile = (root: string, file: string, span: string): string => {
  const candidates = [join(dirname(file), span), join(dirname(file), 'src', span)];
  return candidates.find((candidate) => existsSync(join(root, candidate))) ?? (candidates[0] as string);
};

/**
 * Every relative link (`[text](../libs/x/README.md#anchor)`, `![chart](…)`) and every repository path in a code span
 * (`` `libs/idempotency/src/key-log/` ``) of a Markdown file, resolved against the workspace root.
 *
 * @example
 * markdownReferences(workspaceRoot, 'README.md'); // [{ from: 'README.md', line: 40, target: 'apps/till/README.md' }, …]
 */
export const markdownReferences = (root: string, file: string): DocReference[] => {
  const text = withoutCodeBlocks(readFileSync(join(root, file), 'utf8'));
  const references: DocReference[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const link = match[1] as string;
    if (/^[a-z][a-z+.-]*:/i.test(link)) continue;
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? file : relative(root, resolve(root, dirname(file), decodeURI(path)));
    references.push({
      from: file,
      line: lineOf(text, match.index),
      target,
      ...(anchor === undefined ? {} : { anchor }),
    });
  }
  for (const match of text.matchAll(/`([^`\n]+)`/g)) {
    const span = (match[1] as string).trim();
    const line = lineOf(text, match.index);
    if (isRepositoryPath(span)) references.push({ from: file, line, target: span.replace(/\/$/, '') });
    else if (isPackageFile(span))
      references.push({ from: file, line, target: packageFile(root, file, span) });
  }
  return references;
};

/**
 * Every comment or test name that points to a section of a document in the repository:
 * `docs/ARCHITECTURE.md "The phased protocol"`.
 *
 * @example
 * sectionReferences(workspaceRoot, 'eslint.config.mjs'); // [{ target: 'docs/ARCHITECTURE.md', anchor: 'packages', … }]
 */
export const sectionReferences = (root: string, file: string): DocReference[] => {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\b(docs\/[\w.-]+\.md) "([^"]+)"/g)].map((match) => ({
    from: file,
    line: lineOf(text, match.index),
    target: match[1] as string,
    anchor: headingAnchor(match[2] as string),
  }));
};

/**
 * Mentions of the original design document, which lives outside the repository where no reader can open it: every
 * pointer to a design goes to docs/ARCHITECTURE.md.
 *
 * @example
 * outsideDesignMentions(workspaceRoot, 'eslint.config.mjs'); // []
 */
export const outsideDesignMentions = (root: string, file: string): DocReference[] => {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/\bDESIGN\.md\b/g)].map((match) => ({
    from: file,
    line: lineOf(text, match.index),
    target: match[0],
  }));
};
