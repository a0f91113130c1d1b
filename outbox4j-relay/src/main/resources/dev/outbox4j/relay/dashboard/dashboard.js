// The outbox4j dashboard: polls the relay's JSON API and draws everything with DOM text nodes and SVG. What waits for
// an operator, the operator's actions and the audit log are drawn by operator.js.
// No library and no network access beyond this relay. Data is only ever inserted as text (never as HTML).
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var CHART_SECONDS = 300;

  function byId(id) { return document.getElementById(id); }
  function text(id, value) { byId(id).textContent = value; }

  function format(value, digits) {
    if (value === null || value === undefined) { return '–'; }
    return Number(value).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
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
    var maxLag = niceMax(Math.max.apply(null, points.map(function (p) { return p[2] || 0; }).concat([0])));
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
    return fetch('/api/status', { cache: 'no-store' }).then(function (response) { return response.json(); })
      .then(function (status) {
        var badge = byId('ready');
        var paused = status.pausedDestinations || 0;
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
        text('pending', format(status.pending, 0));
        text('in-flight', format(status.inFlight, 0));
        text('quarantined', format(status.quarantined, 0));
        text('rate', format(status.deliveredPerSecond, 1));
        text('lag', status.lagSeconds === undefined ? '–' : format(status.lagSeconds, 1) + ' s');
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

  function refreshDestinations() {
    return fetch('/api/destinations', { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var paused = data.paused || [];
        var body = document.querySelector('#destinations-table tbody');
        while (body.firstChild) { body.removeChild(body.firstChild); }
        paused.forEach(function (destination) {
          var row = document.createElement('tr');
          row.setAttribute('data-destination', destination.destination);
          cell(row, destination.destination, 'destination');
          cell(row, destination.cause === 'OPERATOR' ? 'paused by operator' : destination.state,
            'state ' + (destination.state === 'probing' ? 'probing' : 'paused'));
          cell(row, when(destination.pausedSince, destination.pausedForSeconds, false), 'since');
          cell(row, destination.nextProbeAt === null ? 'none (resume by hand)'
            : destination.state === 'probing' ? 'due now'
            : when(destination.nextProbeAt, destination.nextProbeInSeconds, true), 'next-probe');
          cell(row, destination.failedProbes);
          cell(row, destination.lastError, 'error');
          body.appendChild(row);
        });
        byId('destinations-table').hidden = paused.length === 0;
        byId('destinations-flowing').hidden = paused.length > 0;
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  refreshStatus().then(refreshDestinations);
  setInterval(refreshStatus, 1000);
  setInterval(refreshDestinations, 1000);
}());
