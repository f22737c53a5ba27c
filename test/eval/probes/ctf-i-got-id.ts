import type { Probe } from './core.ts'

const fixture = 'ctf_web__i_got_id_demo'

/** CSAW 2016 "I Got Id": Perl CGI upload abuse (upload()/param() list confusion, then <ARGV>). */
export const probes: Probe[] = [
  { id: 'ctf-01', fixture, kind: 'recall', question: 'Which CGI scripts did the index page of the challenge server list?', answers: ['forms.pl', 'hello.pl'] },
  { id: 'ctf-02', fixture, kind: 'recall', question: 'What was the title of the challenge index page?', answers: ['Perl Examples'] },
  { id: 'ctf-03', fixture, kind: 'decision', question: 'Which command-injection payload was tried on the forms script, and did it work?', answers: ['name=test;id'] },
  { id: 'ctf-04', fixture, kind: 'artifact', question: 'What does the helper Perl script created for the upload print?', answers: ['%ENV'] },
  { id: 'ctf-05', fixture, kind: 'decision', question: 'Which Perl CGI call was found to accept a file AND a scalar for the same parameter (the root of the bug)?', answers: ['upload()'] },
  { id: 'ctf-06', fixture, kind: 'decision', question: 'Which CGI call returns a list so that only the first "file" value is used?', answers: ['param()'] },
  { id: 'ctf-07', fixture, kind: 'recall', question: 'Which scalar value was sent as the second "file" parameter to test the list confusion?', answers: ['file=5'] },
  { id: 'ctf-08', fixture, kind: 'recall', question: 'Which system file was read first to prove arbitrary file read?', answers: ['/etc/passwd'] },
  { id: 'ctf-09', fixture, kind: 'recall', question: 'What did the read of /etc/passwd return (first entry)?', answers: ['root:x:0:0'] },
]
