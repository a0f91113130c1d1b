// The outbox4j dashboard: polls the relay's JSON API and draws everything with DOM text nodes and SVG. What waits for
// an operator, the operator's actions and the audit log are drawn by operator.js.
// No library and no network access beyond this relay. Data is only ever inserted as text (never as HTML).
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var CHART_SECONDS = 300;
  // The outbox this page shows: ?outbox=NAME, or the relay's first outbox when absent.
  var OUTBOX = new URLSearchParams(window.location.search).get('outbox');

  // Every API request names the outbox this page shows (operator.js uses this too).
  window.outbox4jQuery = function (url) {
    if (!OUTBOX) { return url; }
    return url + (url.indexOf('?') < 0 ? '?' : '&') + 'outbox=' + encodeURIComponent(OUTBOX);
  };

  function byId(id) { return document.getElementById(id); }
  function text(id, value) { byId(id).textContent = value; }

  function format(value, digits) {
    if (value === null || value === undefined) { return '–'; }
    return Number(value).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  }

  // Seconds as a person reads them: "4.2 s", "6m 23s", "2h 5m".
  function duration(seconds) {
    if (seconds === null || seconds === undefined) { return '–'; }
    if (seconds < 60) { return format(seconds, 1) + ' s'; }
    var whole = Math.floor(seconds);
    if (whole < 3600) { return Math.floor(whole / 60) + 'm ' + (whole % 60) + 's'; }
    return Math.floor(whole / 3600) + 'h ' + Math.floor((whole % 3600) / 60) + 'm';
  }

  function element(name, attributes, content) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attributes).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    if (content !== undefined) { node.textContent = content; }
    return node;
  }

  function niceMax(value) {
    if (!(value > 0)) { return 1; }
    var power = Math.pow(10, Math.floor(Math.log10(value)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) { if (value <= steps[i] * power) { return steps[i] * power; } }
    return 10 * power;
  }

  function drawChart(history) {
    var svg = byId('chart');
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var left = 50, right = 850, top = 10, bottom = 190;
    var end = history.length ? history[history.length - 1][0] : Date.now();
    var start = end - CHART_SECONDS * 1000;
    var points = history.filter(function (p) { return p[0] >= start; });
    var maxRate = niceMax(Math.max.apply(null, points.map(function (p) { return p[1] || 0; }).concat([0])));
    var maxLag = niceMax(Math.max.apply(null, points.map(function (p) { return Math.max(p[2] || 0, p[3] || 0); })
      .concat([0])));
    for (var g = 0; g <= 5; g++) {
      var y = bottom - (bottom - top) * g / 5;
      svg.appendChild(element('line', { x1: left, x2: right, y1: y, y2: y, 'class': 'grid' }));
      svg.appendChild(element('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' },
        format(maxRate * g / 5, maxRate < 5 ? 1 : 0)));
      svg.appendChild(element('text', { x: right + 6, y: y + 4 }, format(maxLag * g / 5, maxLag < 5 ? 1 : 0) + ' s'));
    }
    svg.appendChild(element('text', { x: left, y: 210 }, '-' + (CHART_SECONDS / 60) + ' min'));
    svg.appendChild(element('text', { x: right, y: 210, 'text-anchor': 'end' }, 'now'));
    function line(index, max, cls) {
      var coords = points.map(function (p) {
        var x = left + (right - left) * (p[0] - start) / (CHART_SECONDS * 1000);
        var y = bottom - (bottom - top) * Math.min(1, (p[index] || 0) / max);
        return x.toFixed(1) + ',' + y.toFixed(1);
      });
      if (coords.length > 1) { svg.appendChild(element('polyline', { points: coords.join(' '), 'class': cls })); }
    }
    line(1, maxRate, 'rate');
    line(2, maxLag, 'lag');
    line(3, maxLag, 'blocked');
  }

  function drawExtra(extra) {
    var names = Object.keys(extra || {});
    byId('extra-section').hidden = names.length === 0;
    var list = byId('extra');
    while (list.firstChild) { list.removeChild(list.firstChild); }
    names.forEach(function (name) {
      var term = document.createElement('dt'); term.textContent = name;
      var value = document.createElement('dd'); value.textContent = format(extra[name], 0);
      value.setAttribute('data-name', name);
      list.appendChild(term); list.appendChild(value);
    });
  }

  function refreshStatus() {
    return fetch(window.outbox4jQuery('/api/status'), { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (status) {
        var badge = byId('ready');
        var paused = status.pausedDestinations || 0;
        if (status.outbox && (status.outbox !== 'default' || (status.outboxes || []).length > 1)) {
          text('outbox-name', 'outbox ' + status.outbox);
        }
        if (!status.ready) {
          badge.textContent = 'database unreachable';
          badge.className = 'badge down';
        } else if (paused > 0) {
          badge.textContent = paused === 1 ? '1 destination paused' : paused + ' destinations paused';
          badge.className = 'badge degraded';
        } else {
          badge.textContent = 'database reachable';
          badge.className = 'badge up';
        }
        text('waiting', format(status.waiting, 0));
        text('blocked', format(status.blocked, 0));
        text('in-flight', format(status.inFlight, 0));
        text('quarantined', format(status.quarantined, 0));
        text('rate', format(status.deliveredPerSecond, 1));
        text('lag', duration(status.lagSeconds));
        text('blocked-age', status.blocked ? duration(status.blockedSeconds) : '–');
        text('delivered', format(status.delivered, 0));
        drawChart(status.history || []);
        drawExtra(status.extra);
      })
      .catch(function () {
        var badge = byId('ready');
        badge.textContent = 'relay unreachable';
        badge.className = 'badge down';
      });
  }

  function cell(row, value, cls) {
    var td = document.createElement('td');
    td.textContent = value === null || value === undefined ? '–' : String(value);
    if (cls) { td.className = cls; }
    row.appendChild(td);
    return td;
  }

  function when(iso, seconds, future) {
    var at = new Date(iso);
    var time = isNaN(at.getTime()) ? String(iso) : at.toLocaleTimeString('en-GB');
    if (seconds === null || seconds === undefined) { return time; }
    var span = seconds < 90 ? format(seconds, 0) + ' s' : seconds < 5400 ? format(seconds / 60, 0) + ' min'
      : format(seconds / 3600, 1) + ' h';
    return time + (future ? ' (in ' + span + ')' : ' (' + span + ' ago)');
  }

  // One row per destination: configured, with undelivered entries, or paused. A paused row says why and until when.
  function pauseText(pause) {
    if (!pause) { return ''; }
    // nextSend says what goes next; nextSendAt when, if a time can be told (never one already past)
    var next = 'next send: ' + (pause.nextSendAt === null ? pause.nextSend
      : when(pause.nextSendAt, pause.nextSendInSeconds, true) + ', ' + pause.nextSend);
    var parts = ['since ' + when(pause.pausedSince, pause.pausedForSeconds, false), next];
    if (pause.failedProbes) { parts.push(pause.failedProbes + ' failed probes'); }
    if (pause.lastError) { parts.push(pause.lastError); }
    return parts.join(' · ');
  }

  function refreshDestinations() {
    return fetch(window.outbox4jQuery('/api/destinations'), { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var paused = data.paused || [];
        var rows = data.destinations || [];
        var body = document.querySelector('#destinations-table tbody');
        while (body.firstChild) { body.removeChild(body.firstChild); }
        rows.forEach(function (destination) {
          var row = document.createElement('tr');
          row.setAttribute('data-name', destination.destination);
          row.setAttribute('data-state', destination.state);
          cell(row, destination.destination, 'destination');
          cell(row, destination.transport === null ? 'no route' : destination.transport, 'transport');
          cell(row, destination.cause === 'OPERATOR' ? 'paused by operator' : destination.state,
            'state ' + destination.state);
          cell(row, format(destination.waiting, 0), 'number waiting');
          cell(row, format(destination.blocked, 0), 'number blocked' + (destination.blocked > 0 ? ' some' : ''));
          cell(row, format(destination.inFlight, 0), 'number in-flight');
          cell(row, format(destination.quarantined, 0), 'number quarantined');
          cell(row, format(destination.deliveredPerSecond, 1), 'number rate');
          cell(row, destination.waiting > 0 ? duration(destination.lagSeconds) : '–', 'number lag');
          cell(row, destination.blocked > 0 ? duration(destination.blockedSeconds) : '–', 'number blocked-age');
          cell(row, pauseText(destination.pause), 'error pause');
          body.appendChild(row);
        });
        byId('destinations-table').hidden = rows.length === 0;
        var flowing = byId('destinations-flowing');
        flowing.textContent = paused.length === 0 ? 'All destinations flowing.'
          : paused.length === 1 ? '1 destination paused.' : paused.length + ' destinations paused.';
        flowing.className = paused.length === 0 ? '' : 'degraded';
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  // With several outboxes: one row each, its name a link to its own view of this page (the admin token in the fragment
  // is kept); the outbox shown is marked.
  function refreshOutboxes() {
    return fetch('/api/outboxes', { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var rows = data.outboxes || [];
        var several = rows.length > 1 || (rows.length === 1 && rows[0].outbox !== 'default');
        byId('outboxes-section').hidden = !several;
        if (!several) { return; }
        var shown = OUTBOX || rows[0].outbox;
        var body = document.querySelector('#outboxes-table tbody');
        while (body.firstChild) { body.removeChild(body.firstChild); }
        rows.forEach(function (outbox) {
          var row = document.createElement('tr');
          row.setAttribute('data-name', outbox.outbox);
          row.setAttribute('data-state', outbox.state);
          if (outbox.outbox === shown) { row.className = 'selected'; }
          var name = document.createElement('td');
          var link = document.createElement('a');
          link.textContent = outbox.outbox;
          link.href = '?outbox=' + encodeURIComponent(outbox.outbox) + window.location.hash;
          name.appendChild(link);
          row.appendChild(name);
          cell(row, outbox.state === 'UP' ? 'up' : outbox.state === 'STARTING' ? 'database unreachable (starting)'
            : 'database unreachable', 'state ' + outbox.state);
          cell(row, format(outbox.waiting, 0), 'number waiting');
          cell(row, format(outbox.blocked, 0), 'number blocked' + (outbox.blocked > 0 ? ' some' : ''));
          cell(row, format(outbox.inFlight, 0), 'number in-flight');
          cell(row, format(outbox.quarantined, 0), 'number quarantined');
          cell(row, format(outbox.deliveredPerSecond, 1), 'number rate');
          cell(row, outbox.waiting > 0 ? duration(outbox.lagSeconds) : '–', 'number lag');
          cell(row, (outbox.pausedDestinations || []).join(', ') || '–', 'paused');
          cell(row, outbox.error || '', 'error');
          body.appendChild(row);
        });
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  refreshStatus().then(refreshDestinations).then(refreshOutboxes);
  setInterval(refreshStatus, 1000);
  setInterval(refreshDestinations, 1000);
  setInterval(refreshOutboxes, 2000);
}());
