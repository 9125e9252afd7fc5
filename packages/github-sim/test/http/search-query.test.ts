// The search qualifier parser REST and GraphQL share, on its own: bands, defaults, residual filters, refusals.
import { describe, expect, it } from 'vitest';
import { parseRepoSearchQuery, SearchQueryError } from '../../src/http/search-query.js';
import type { SimRepo } from '../../src/world/model.js';

describe('parseRepoSearchQuery', () => {
  it('reads star bands, language, archived and sort', () => {
    const plan = parseRepoSearchQuery('stars:100..500 language:"Jupyter Notebook" archived:false sort:stars-asc');
    expect(plan.search).toEqual({
      minStars: 100,
      maxStars: 500,
      language: 'Jupyter Notebook',
      includeArchived: false,
      includeForks: false,
      sort: 'stars',
      direction: 'asc',
    });
    expect(plan.residual).toEqual([]);
  });

  it('reads comparisons and open ranges', () => {
    expect(parseRepoSearchQuery('stars:>=10').search).toMatchObject({ minStars: 10 });
    expect(parseRepoSearchQuery('stars:>10').search).toMatchObject({ minStars: 11 });
    expect(parseRepoSearchQuery('stars:<10').search).toMatchObject({ maxStars: 9 });
    expect(parseRepoSearchQuery('stars:*..20 stars:5..*').search).toMatchObject({ minStars: 5, maxStars: 20 });
    expect(parseRepoSearchQuery('stars:42').search).toMatchObject({ minStars: 42, maxStars: 42 });
  });

  it('defaults to GitHub: forks out, archived in; sort:updated is newest first', () => {
    expect(parseRepoSearchQuery('sort:updated').search).toEqual({
      includeArchived: true,
      includeForks: false,
      sort: 'updated',
      direction: 'desc',
    });
  });

  it('keeps filters RepoSearch cannot express as residual predicates', () => {
    const fork = { isFork: true, isArchived: false, mirrorUrl: null } as unknown as SimRepo;
    const source = { isFork: false, isArchived: true, mirrorUrl: 'x' } as unknown as SimRepo;
    const forksOnly = parseRepoSearchQuery('fork:only');
    expect(forksOnly.search.includeForks).toBe(true);
    expect([fork, source].filter((repo) => forksOnly.residual.every((keep) => keep(repo)))).toEqual([fork]);
    const archivedMirrors = parseRepoSearchQuery('archived:true mirror:true fork:true');
    expect([fork, source].filter((repo) => archivedMirrors.residual.every((keep) => keep(repo)))).toEqual([source]);
  });

  it('refuses free text and unknown qualifiers with a code', () => {
    expect(() => parseRepoSearchQuery('widgets')).toThrow(SearchQueryError);
    expect(() => parseRepoSearchQuery('topic:cli')).toThrow(expect.objectContaining({ code: 'unsupported-term' }));
    expect(() => parseRepoSearchQuery('stars:abc')).toThrow(expect.objectContaining({ code: 'invalid-value' }));
  });

  it('refuses what the world cannot answer: private repositories, two languages at once', () => {
    expect(() => parseRepoSearchQuery('is:private')).toThrow(expect.objectContaining({ code: 'unsupported-value' }));
    expect(() => parseRepoSearchQuery('sort:forks')).toThrow(expect.objectContaining({ code: 'unsupported-value' }));
    expect(() => parseRepoSearchQuery('language:go language:rust')).toThrow(
      expect.objectContaining({ code: 'conflicting-qualifiers' }),
    );
    expect(parseRepoSearchQuery('language:go language:Go').search.language).toBe('Go');
  });

  it('names the terms its residual filters stand for', () => {
    expect(parseRepoSearchQuery('stars:>1 fork:only mirror:false archived:true').residualTerms).toEqual([
      'fork:only',
      'mirror:false',
      'archived:true',
    ]);
  });
});
