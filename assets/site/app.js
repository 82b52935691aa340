// Travel Finder: shared script of the fovea demo site (plain JS, no framework).
// Holds the flight data, the consent wall, the cross-origin helper and the
// small widgets (autocomplete, date picker, chevron menus) the pages use.
'use strict';

const TF = {};

TF.cities = [
  ['Lisbon', 'Portugal', 'LIS'], ['Lima', 'Peru', 'LIM'], ['Lyon', 'France', 'LYS'],
  ['Liverpool', 'United Kingdom', 'LPL'], ['Ljubljana', 'Slovenia', 'LJU'],
  ['Madrid', 'Spain', 'MAD'], ['Milan', 'Italy', 'MXP'], ['Montreal', 'Canada', 'YUL'],
  ['Kyoto', 'Japan', 'UKY'], ['Oaxaca', 'Mexico', 'OAX'], ['Porto', 'Portugal', 'OPO'],
  ['Seville', 'Spain', 'SVQ'], ['Vienna', 'Austria', 'VIE'],
];

TF.flights = [
  { code: 'TP1351', airline: 'TAP Air Portugal', dep: '07:05', arr: '09:40', stops: 0, via: '', price: 389 },
  { code: 'IB3170', airline: 'Iberia', dep: '08:30', arr: '13:55', stops: 1, via: 'MAD', price: 342 },
  { code: 'LH1166', airline: 'Lufthansa', dep: '09:15', arr: '15:20', stops: 1, via: 'FRA', price: 455 },
  { code: 'TP1353', airline: 'TAP Air Portugal', dep: '12:40', arr: '15:15', stops: 0, via: '', price: 512 },
  { code: 'AF1024', airline: 'Air France', dep: '13:05', arr: '18:50', stops: 1, via: 'CDG', price: 398 },
  { code: 'LH1172', airline: 'Lufthansa', dep: '16:20', arr: '23:35', stops: 2, via: 'FRA, MUC', price: 301 },
  { code: 'IB3166', airline: 'Iberia', dep: '18:10', arr: '20:40', stops: 0, via: '', price: 429 },
  { code: 'KL1697', airline: 'KLM', dep: '19:45', arr: '06:10+1', stops: 1, via: 'AMS', price: 366 },
];

TF.params = () => new URLSearchParams(location.search);

// The origin the passenger form is served from. The runner serves the site on
// a second loopback origin and passes it as ?xo= on the first page; it is kept
// for the tab in sessionStorage. Without it the form is same-origin.
TF.formOrigin = () => {
  const xo = TF.params().get('xo');
  if (xo && /^https?:\/\/[^/]+$/.test(xo)) sessionStorage.setItem('tf.xo', xo);
  return sessionStorage.getItem('tf.xo') || location.origin;
};

// The consent wall covers the page until a choice is made (remembered for the tab).
TF.consent = () => {
  if (sessionStorage.getItem('tf.consent')) return;
  const wall = document.createElement('div');
  wall.className = 'consent-wall';
  wall.id = 'cookie-banner';
  wall.innerHTML =
    '<div class="consent" role="dialog" aria-label="Cookie consent">' +
    '<p><strong>We value your privacy</strong>We use cookies to remember your searches and to ' +
    'measure how our site is used. You can accept all cookies or only the necessary ones.</p>' +
    '<button class="btn secondary" data-choice="necessary">Only necessary</button>' +
    '<button class="btn" data-choice="all">Accept all cookies</button></div>';
  wall.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-choice]');
    if (!b) return;
    sessionStorage.setItem('tf.consent', b.dataset.choice);
    wall.remove();
  });
  document.body.appendChild(wall);
};

TF.money = (n) => '$' + n;
TF.stopsText = (f) => f.stops === 0 ? 'Non-stop' : f.stops + (f.stops === 1 ? ' stop' : ' stops') + ' (' + f.via + ')';

// A chevron menu: only the small chevron button opens the option list; the row
// itself is plain text. onPick(value) runs when an option is chosen.
TF.chevronMenu = (row, options, current, onPick) => {
  const btn = row.querySelector('.chevron');
  const cur = row.querySelector('.current');
  let menu = null;
  const close = () => { if (menu) { menu.remove(); menu = null; } btn.setAttribute('aria-expanded', 'false'); };
  cur.textContent = current;
  btn.addEventListener('click', (e) => {
    e.stopPropagation();
    if (menu) { close(); return; }
    menu = document.createElement('ul');
    menu.className = 'menu';
    menu.setAttribute('role', 'listbox');
    for (const o of options) {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.textContent = o;
      li.setAttribute('aria-selected', String(o === cur.textContent));
      li.addEventListener('click', (ev) => {
        ev.stopPropagation();
        cur.textContent = o;
        close();
        onPick(o);
      });
      menu.appendChild(li);
    }
    row.appendChild(menu);
    btn.setAttribute('aria-expanded', 'true');
  });
  document.addEventListener('click', (e) => { if (menu && !row.contains(e.target)) close(); });
};

TF.monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August',
  'September', 'October', 'November', 'December'];
TF.dayNames = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

TF.formatDate = (iso) => {
  const [y, m, d] = iso.split('-').map(Number);
  const dt = new Date(Date.UTC(y, m - 1, d));
  return TF.dayNames[dt.getUTCDay()] + ' ' + d + ' ' + TF.monthNames[m - 1].slice(0, 3) + ' ' + y;
};

// A month-grid date picker opened from a calendar button. The first month
// shown is fixed by data-month (so the demo does not depend on today's date).
TF.datePicker = (field) => {
  const input = field.querySelector('input');
  const hidden = field.querySelector('input[type=hidden]');
  const open = field.querySelector('.date-input button');
  let cal = null;
  let [year, month] = field.dataset.month.split('-').map(Number);
  const close = () => { if (cal) { cal.remove(); cal = null; } open.setAttribute('aria-expanded', 'false'); };
  const render = () => {
    cal.innerHTML = '';
    const head = document.createElement('header');
    const title = TF.monthNames[month - 1] + ' ' + year;
    head.innerHTML = '<button type="button" aria-label="Previous month">&#8249;</button><span>' + title +
      '</span><button type="button" aria-label="Next month">&#8250;</button>';
    head.children[0].onclick = (e) => { e.stopPropagation(); month--; if (month < 1) { month = 12; year--; } render(); };
    head.children[2].onclick = (e) => { e.stopPropagation(); month++; if (month > 12) { month = 1; year++; } render(); };
    cal.appendChild(head);
    const grid = document.createElement('div');
    grid.className = 'grid';
    for (const d of TF.dayNames) grid.insertAdjacentHTML('beforeend', '<span class="dow">' + d.slice(0, 2) + '</span>');
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    for (let i = 0; i < first; i++) grid.appendChild(document.createElement('span'));
    for (let d = 1; d <= days; d++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'day';
      b.textContent = d;
      const iso = year + '-' + String(month).padStart(2, '0') + '-' + String(d).padStart(2, '0');
      b.setAttribute('aria-label', d + ' ' + TF.monthNames[month - 1] + ' ' + year);
      b.setAttribute('aria-pressed', String(hidden.value === iso));
      b.onclick = (e) => { e.stopPropagation(); hidden.value = iso; input.value = TF.formatDate(iso); close(); };
      grid.appendChild(b);
    }
    cal.appendChild(grid);
  };
  open.addEventListener('click', (e) => {
    e.stopPropagation();
    if (cal) { close(); return; }
    cal = document.createElement('div');
    cal.className = 'calendar';
    cal.setAttribute('role', 'dialog');
    cal.setAttribute('aria-label', 'Choose a departure date');
    field.appendChild(cal);
    open.setAttribute('aria-expanded', 'true');
    render();
  });
  document.addEventListener('click', (e) => { if (cal && !field.contains(e.target)) close(); });
};

// Autocomplete: suggestions appear after a short pause in typing, as on real sites.
TF.autocomplete = (field) => {
  const input = field.querySelector('input[type=text]');
  const list = field.querySelector('.suggest');
  let timer = 0;
  const hide = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const q = input.value.trim().toLowerCase();
      list.innerHTML = '';
      if (q.length < 2) { hide(); return; }
      const hits = TF.cities.filter(([c, n]) => c.toLowerCase().startsWith(q) ||
        (c + ', ' + n).toLowerCase().includes(q)).slice(0, 6);
      for (const [c, n, code] of hits) {
        const li = document.createElement('li');
        li.setAttribute('role', 'option');
        li.setAttribute('aria-label', c + ', ' + n);
        li.innerHTML = '<span>' + c + ', ' + n + '</span><small>' + code + '</small>';
        li.addEventListener('click', () => { input.value = c; hide(); input.dispatchEvent(new Event('change')); });
        list.appendChild(li);
      }
      list.hidden = hits.length === 0;
      input.setAttribute('aria-expanded', String(hits.length > 0));
    }, 150);
  });
  document.addEventListener('click', (e) => { if (!field.contains(e.target)) hide(); });
};
