// Drives dynamodb-admin in headless Chromium: the table list, a table's
// scan page and an item page must render what extenddb holds.
//
// usage: node check.mjs ADMIN_URL TABLE ITEM_KEY EXPECTED_TEXT
// env:   CHROMIUM (default /usr/bin/chromium)
import { chromium } from 'playwright-core';

const [adminURL, table, key, expected] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const fail = async (msg) => {
  console.error('FAIL: ' + msg);
  await browser.close();
  process.exit(1);
};
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(30000);
  const tablePath = '/tables/' + encodeURIComponent(table);

  let res = await page.goto(adminURL + '/');
  if (!res.ok()) await fail('table list: HTTP ' + res.status());
  await page.waitForSelector(`a[href$="${tablePath}"]`);
  console.log('table list: ' + table + ' listed');

  res = await page.goto(adminURL + tablePath);
  if (!res.ok()) await fail('scan page: HTTP ' + res.status());
  await page.waitForFunction((k) => document.body.innerText.includes(k), key);
  console.log('scan page: item ' + key + ' shown');

  res = await page.goto(adminURL + tablePath + '/items/' + encodeURIComponent(key));
  if (!res.ok()) await fail('item page: HTTP ' + res.status());
  await page.waitForFunction((want) => window.ace && window.ace.edit('documentTextarea').getValue().includes(want), expected);
  console.log('item page: ' + expected + ' shown');
} catch (e) {
  await fail(e.message);
}
await browser.close();
console.log('ok');
