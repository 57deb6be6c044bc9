#!/usr/bin/env bash
# A shell loop over git plumbing writing one commit per record, the way a
# script without git-lore would: hash-object -w the record, rebuild the
# fan-out trees with ls-tree + mktree (leaf, X, top dir, root), commit-tree,
# update-ref with the expected old value. Unsigned.
#
#   plumbing_loop.sh GIT_DIR INPUT_DIR
#
# INPUT_DIR holds NNNNNN.blob / .path / .msg (bench/lib/stream_tool.py
# plumbing-inputs). Prints the final commit id.
set -euo pipefail
gd=$1
in=$2
export GIT_DIR=$gd
ref=refs/heads/ledger
parent=
root=$(git mktree </dev/null)   # the empty tree
tab=$'\t'

# without TREE NAME: the entries of TREE minus NAME (ls-tree format).
without() { git ls-tree "$1" | { grep -v "${tab}$2\$" || true; }; }

for blobf in "$in"/*.blob; do
    base=${blobf%.blob}
    path=$(<"$base.path")
    IFS=/ read -r top x y name <<<"$path"
    blob=$(git hash-object -w "$blobf")
    # leaf tree top/x/y
    leaf_old=$(git rev-parse -q --verify "$root:$top/$x/$y" 2>/dev/null || true)
    leaf=$( { [ -n "$leaf_old" ] && git ls-tree "$leaf_old"; printf '100644 blob %s\t%s\n' "$blob" "$name"; } | git mktree)
    xt_old=$(git rev-parse -q --verify "$root:$top/$x" 2>/dev/null || true)
    xt=$( { [ -n "$xt_old" ] && without "$xt_old" "$y"; printf '040000 tree %s\t%s\n' "$leaf" "$y"; } | git mktree)
    tt_old=$(git rev-parse -q --verify "$root:$top" 2>/dev/null || true)
    tt=$( { [ -n "$tt_old" ] && without "$tt_old" "$x"; printf '040000 tree %s\t%s\n' "$xt" "$x"; } | git mktree)
    root=$( { without "$root" "$top"; printf '040000 tree %s\t%s\n' "$tt" "$top"; } | git mktree)
    if [ -n "$parent" ]; then
        commit=$(git commit-tree "$root" -p "$parent" -F "$base.msg")
        git update-ref "$ref" "$commit" "$parent"
    else
        commit=$(git commit-tree "$root" -F "$base.msg")
        git update-ref "$ref" "$commit" ""
    fi
    parent=$commit
done
echo "$parent"
