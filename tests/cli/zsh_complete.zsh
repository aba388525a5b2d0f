# zsh's own completion system, driven in a pseudo-terminal (zsh/zpty):
#   zsh zsh_complete.zsh LINE COMPLETIONS_DIR OUT_FILE
# starts an interactive zsh with COMPLETIONS_DIR (holding _dractl) on fpath and
# compinit, types LINE and a TAB, and prints every candidate zsh's completion
# adds (compadd), one a line. completion_test.cc runs it.
zmodload zsh/zpty
line=$1 dir=$2 out=$3
zpty z zsh -f -i
zpty -w z "PS1='' RPROMPT=''"
zpty -w z "fpath=(${(q)dir} \$fpath); autoload -U compinit && compinit -u -D"
# compadd, wrapped: what it is given goes to stderr between markers.
zpty -w z 'compadd() { local -a __hits; builtin compadd -O __hits "$@"; (( ${#__hits} )) && print -rl -- "<<${^__hits[@]}>>" >&2; builtin compadd "$@" }'
zpty -w z "exec 2>${(q)out}"
zpty -w z "$line"$'\t'
sleep 1
zpty -w z $'\C-c'  # the line is never run
sleep 0.2
zpty -d z
sed -n 's/^<<\(.*\)>>$/\1/p' "$out"
