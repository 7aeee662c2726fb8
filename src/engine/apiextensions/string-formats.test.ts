import { describe, expect, it } from 'vitest';
import { stringFormatCheck } from './string-formats.js';

/**
 * Each answer below is what kube-openapi's strfmt.Default.Validates(format, value) answers (run against the Go module
 * while writing this), except where Go changed after 1.23, the Go kube 1.32 is built with: Go 1.26's net.ParseMAC
 * also takes bare hex (`0123456789ab`), and its net/url refuses a few more bracketed or many-coloned hosts.
 */
const cases: Record<string, { ok: string[]; bad: string[] }> = {
  email: {
    ok: ["a@b.c", "a@b", "Name <a@b.c>", "\"q l\"@b.c", "a@[1.2.3.4]", "a@[::1]", "team: a@b.c;", "a@b.c (comment)", "<a@b.c>", "=?utf-8?q?J=C3=B6rg?= <a@b.c>", "Jörg <j@x.de>", "\ta@b.c\t", "Joe =?x-unknown?q?a?= <a@b.c>"],
    bad: ["", "foo", "a@", "@b", "a b@c.d", "a.@b.c", "a..b@c.d", "\"\"@b.c", "a@[01.2.3.4]", "a@[fe80::1%eth0]", "team:;", "team: a@b.c, d@e.f;", "a@b.c (unclosed", "Name <a@b.c", "a@b.c,", "=?x-unknown?q?a?= <a@b.c>", "=?utf-8?q?a?= (c) <a@b.c>", "a@b.c (=?x-unknown?q?a?=)"],
  },
  uri: {
    ok: ["http://x", "http://x:80/p?q#f", "https://[::1]:8080/", "/path", "*", "mailto:a@b", "http://u:p@h/", "http://%c3%a9/", "http://é/", "a:b c", "http://x?", "http://[fe80::1%25eth0]/", "HTTP://X", "http://u@p@h/", "//host/p"],
    bad: ["", "x", "http://[::1", "http://a b/", "http://a#b/", "http://u p@h/", "http://h:port/", "http://%41/", "http://x/%zz", "http://x/%4", ":foo", "1http://x", "http://x\u0001/", "http://{x}/", "/a\u007fb", "http://[fe80::1%25e%2Fh]/"],
  },
  hostname: {
    ok: ["a", "a.bc", "example.com", "xn--80ak6aa92e.com", "пример.рф", "☃.net", "a-b"],
    bad: ["", "-a.com", "a-.com", "a_b.com", "ex ample.com", "a.1", "a..b", "a.", ".a", "a.c2", "-", "a--b", "1.2.3.4"],
  },
  mac: {
    ok: ["01:23:45:67:89:ab", "01-23-45-67-89-AB", "0123.4567.89ab", "01:23:45:67:89:ab:cd:ef", "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01"],
    bad: ["", "01:23:45:67:89", "01:23-45:67:89:ab", "0g:23:45:67:89:ab", "0123.4567.89ab.cd", "0123456789ab"],
  },
  cidr: {
    ok: ["10.0.0.0/8", "010.0.0.0/8", "::/0", "::1/128", "10.0.0.0/08", "::ffff:1.2.3.4/96"],
    bad: ["", "10.0.0.0", "10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0.0/+8", "fe80::1%eth0/64", "256.0.0.0/8"],
  },
  isbn: {
    ok: ["0321751043", "978-0321751041", "0 321 75104 3", "080442957X"],
    bad: ["0321751044", "080442957x", "97803217510411", ""],
  },
  isbn10: {
    ok: ["0321751043"],
    bad: ["9780321751041"],
  },
  isbn13: {
    ok: ["978-0321751041"],
    bad: ["0321751043"],
  },
  creditcard: {
    ok: ["4111111111111111", "4111 1111 1111 1111", "x4111111111111111x"],
    bad: ["4111-1111-1111-1112", "1234", ""],
  },
  ssn: {
    ok: ["123-45-6789", "123 45 6789"],
    bad: ["123456789", "12-345-6789", "123-45-67890"],
  },
  hexcolor: {
    ok: ["#fff", "fff", "#FFFFFF"],
    bad: ["#ffff", "ggg", ""],
  },
  rgbcolor: {
    ok: ["rgb(0,0,0)", "rgb( 1 , 2 , 3 )"],
    bad: ["rgb(256,0,0)", "rgb(01,0,0)", "RGB(0,0,0)", "rgb(\u00a00,0,0)"],
  },
  bsonobjectid: {
    ok: ["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"],
    bad: ["507f1f77bcf86cd79943901", "507f1f77bcf86cd79943901g"],
  },
};

describe('string formats kube checks in custom resources', () => {
  it.each(Object.entries(cases))('%s: accepts what Go accepts and refuses what it refuses', (format, { ok, bad }) => {
    const check = stringFormatCheck(format)!;
    expect(check, format).toBeDefined();
    expect(ok.filter((s) => !check(s)), 'refused, but Go accepts').toEqual([]);
    expect(bad.filter((s) => check(s)), 'accepted, but Go refuses').toEqual([]);
  });

  it('matches names without their dashes, as strfmt does', () => {
    expect(stringFormatCheck('date-time')).toBe(stringFormatCheck('datetime'));
    expect(stringFormatCheck('isbn-10')!('0321751043')).toBe(true);
  });

  it('checks nothing for formats kube 1.32 strips from a schema (k8s-short-name arrived in 1.34) or never knew', () => {
    for (const format of ['k8s-short-name', 'k8s-long-name', 'int32', 'hostname-of-my-own', 'uri-reference']) expect(stringFormatCheck(format), format).toBeUndefined();
  });

  it('stays fast on long hostile strings (the hostname pattern runs only within 255 bytes)', () => {
    const long = `${'a.'.repeat(200_000)}1`;
    for (const format of ['hostname', 'email', 'uri', 'mac', 'cidr', 'isbn', 'creditcard', 'rgbcolor']) expect(stringFormatCheck(format)!(long), format).toBe(false);
    expect(stringFormatCheck('email')!(`${'('.repeat(100_000)}a@b`)).toBe(false);
    expect(stringFormatCheck('email')!(`${'a '.repeat(100_000)}<a@b>`)).toBe(true);
  });
});
