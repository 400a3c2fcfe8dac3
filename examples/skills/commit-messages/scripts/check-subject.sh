#!/bin/sh
# Checks one commit subject line, given as the only argument: its length and
# the "<area>: what changed" shape. Reads nothing but its argument and
# writes only to standard output.
subject="$1"
length=${#subject}
printf 'length: %s\n' "$length"
case "$subject" in
  [!\ ]*": "[!\ ]*) printf 'shape: ok\n' ;;
  *) printf 'shape: missing "<area>: what changed"\n' ;;
esac
if [ "$length" -gt 72 ]; then
  printf 'too long: keep it under 72 characters\n'
fi
case "$subject" in
  *.) printf 'ends with a full stop: drop it\n' ;;
esac
