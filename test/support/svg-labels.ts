/**
 * The text labels of a page's SVG charts, checked in the browser (playwright-core's Page): a label
 * is clipped when its box leaves its svg's view box, and two labels overlap when their boxes share
 * more than half a unit each way. Used by the replay reports' Chromium tests.
 */
import { statSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's chromium, headless and quiet (no network of its own). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The parts of an SVG element the checks read (no DOM types in this project). */
interface SvgLike {
  id: string;
  viewBox: { baseVal: { width: number; height: number } };
  querySelectorAll(s: string): ArrayLike<{ textContent: string | null; getBBox(): Box }>;
}
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Labels clipped by their svg and pairs of labels that overlap, as `svg-id: text` strings. */
export async function svgLabelProblems(page: Page): Promise<{ clipped: string[]; overlapping: string[] }> {
  return page.$$eval('svg', (els) => {
    const clipped: string[] = [];
    const overlapping: string[] = [];
    for (const el of els) {
      const svg = el as unknown as SvgLike;
      const vb = svg.viewBox.baseVal;
      const texts = Array.from(svg.querySelectorAll('text')).filter(
        (t) => (t.textContent ?? '').trim() !== '',
      );
      const boxes = texts.map((t) => t.getBBox());
      texts.forEach((t, i) => {
        const b = boxes[i]!;
        if (b.x < -0.5 || b.y < -0.5 || b.x + b.width > vb.width + 0.5 || b.y + b.height > vb.height + 0.5)
          clipped.push(`${svg.id}: ${t.textContent}`);
        for (let j = i + 1; j < texts.length; j++) {
          const c = boxes[j]!;
          const dx = Math.min(b.x + b.width, c.x + c.width) - Math.max(b.x, c.x);
          const dy = Math.min(b.y + b.height, c.y + c.height) - Math.max(b.y, c.y);
          if (dx > 0.5 && dy > 0.5)
            overlapping.push(`${svg.id}: "${t.textContent}" / "${texts[j]!.textContent}"`);
        }
      });
    }
    return { clipped, overlapping };
  });
}

/**
 * Checks that the page asked for nothing but files (`requests`: every URL it requested) and takes
 * a full-page screenshot into `file`, which must hold a rendered page (over 10 kB).
 */
export async function expectOfflineScreenshot(
  page: Page,
  requests: readonly string[],
  file: string,
): Promise<void> {
  expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  await page.screenshot({ path: file, fullPage: true });
  expect(statSync(file).size).toBeGreaterThan(10_000);
}
