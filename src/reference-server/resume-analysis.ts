/**
 * A plausible, deterministic "AI" resume analysis: format from magic bytes, skills by keyword,
 * a score derived from the content. The spec shows no result fields (§2), so the shape is the target's own.
 */
import { createHash } from 'node:crypto';

export interface ResumeFile {
  readonly name: string;
  readonly mimeType: string;
  readonly content: Buffer;
}

export type ResumeFormat = 'pdf' | 'docx' | 'text' | 'binary';

export interface ResumeAnalysis {
  readonly analysis_id: string;
  readonly file: {
    readonly name: string;
    readonly content_type: string;
    readonly bytes: number;
    readonly format: ResumeFormat;
  };
  readonly candidate_name: string | null;
  readonly score: number;
  readonly skills: readonly string[];
  readonly experience_years: number | null;
  readonly summary: string;
}

const SKILLS = [
  'TypeScript',
  'JavaScript',
  'Node.js',
  'Go',
  'Rust',
  'Python',
  'Java',
  'Kubernetes',
  'PostgreSQL',
  'SQL',
  'AWS',
  'React',
  'Terraform',
  'Kafka',
  'Docker',
];

export function detectFormat(content: Buffer): ResumeFormat {
  if (content.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (content.length >= 4 && content.readUInt32LE(0) === 0x04034b50) return 'docx';
  const sample = content.subarray(0, 4096);
  return sample.includes(0) ? 'binary' : 'text';
}

/** Text a naive parser can see: uncompressed PDF strings, stored DOCX XML, or the text itself. */
function visibleText(content: Buffer, format: ResumeFormat): string {
  const raw = content.toString(format === 'text' ? 'utf8' : 'latin1');
  return format === 'docx' ? raw.replace(/<[^>]+>/g, ' ') : raw;
}

function skillsIn(text: string): string[] {
  return SKILLS.filter((skill) => {
    const escaped = skill.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[^A-Za-z])${escaped}($|[^A-Za-z])`, 'i').test(text);
  });
}

export function analyzeResume(file: ResumeFile): ResumeAnalysis {
  const format = detectFormat(file.content);
  const text = visibleText(file.content, format);
  const digest = createHash('sha256').update(file.content).digest();
  const skills = skillsIn(text);
  const years = /(\d{1,2})\+?\s+years/i.exec(text);
  const name = /^\s*([A-Z][a-z]+(?: [A-Z][a-z]+){1,2})\s*$/m.exec(text);
  const score = Math.min(100, 40 + skills.length * 6 + (digest[0]! % 10));
  return {
    analysis_id: `ana_${digest.subarray(0, 8).toString('hex')}`,
    file: { name: file.name, content_type: file.mimeType, bytes: file.content.length, format },
    candidate_name: name ? name[1]! : null,
    score,
    skills,
    experience_years: years ? Number(years[1]) : null,
    summary:
      skills.length > 0
        ? `Matched ${skills.length} skill${skills.length === 1 ? '' : 's'}: ${skills.slice(0, 5).join(', ')}.`
        : 'No listed skills recognised.',
  };
}
