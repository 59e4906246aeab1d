# bash completion for sbx(1). Installed by `cmake --install` into
# share/bash-completion/completions/sbx. The options come from `sbx COMMAND --help` and the
# names from `sbx complete`, so that they are always this sbx's.

_sbx_options()
{
	"${1:-sbx}" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u
	"${1:-sbx}" "$2" --help 2>/dev/null | grep -o -- '^ *-[a-zA-Z],' | tr -d ' ,' | sort -u
}

_sbx()
{
	local cur prev words cword sbx cmd i
	if declare -F _init_completion >/dev/null 2>&1; then
		_init_completion -n = || return
	else
		COMPREPLY=()
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi
	sbx=${words[0]}

	# the command: the first word that is not an option
	cmd=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$("$sbx" complete commands 2>/dev/null) --help --version" -- "$cur"))
		return
	fi
	# after `--`, the worker's command and its own arguments
	for ((i = i + 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			return
		fi
	done

	case $prev in
	-p | --profile)
		COMPREPLY=($(compgen -W "$("$sbx" complete profiles 2>/dev/null)" -- "$cur"))
		compopt -o filenames 2>/dev/null
		COMPREPLY+=($(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		return
		;;
	--seccomp-allow | --seccomp-deny)
		COMPREPLY=($(compgen -W "$("$sbx" complete seccomp-groups 2>/dev/null)" -- "$cur"))
		return
		;;
	--net | --network)
		COMPREPLY=($(compgen -W "none host" -- "$cur"))
		return
		;;
	--home)
		COMPREPLY=($(compgen -W "tmpfs empty none" -- "$cur") $(compgen -d -- "$cur"))
		return
		;;
	--backend)
		COMPREPLY=($(compgen -W "auto namespaces landlock" -- "$cur"))
		return
		;;
	--approve)
		COMPREPLY=($(compgen -W "tty deny allow cmd: socket:" -- "$cur"))
		return
		;;
	--seccomp-errno)
		COMPREPLY=($(compgen -W "EPERM EACCES ENOSYS" -- "$cur"))
		return
		;;
	-w | --workdir | --chdir | --workspace | --root | --restrict | --allow-read | --allow-write)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	-v | --volume | --hide | --unhide | --device | --audit-log | --tmpfs | -e | --env | --mount | --label | --approve-timeout)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	esac

	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$("$sbx" complete commands 2>/dev/null)" -- "$cur"))
		;;
	complete)
		COMPREPLY=($(compgen -W "profiles seccomp-groups commands" -- "$cur"))
		;;
	profiles)
		if [[ $prev == profiles ]]; then
			COMPREPLY=($(compgen -W "list show validate --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$sbx" complete profiles 2>/dev/null)" -- "$cur"))
			COMPREPLY+=($(compgen -f -X '!*.yaml' -- "$cur"))
		fi
		;;
	check)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_sbx_options "$sbx" "$cmd")" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "read list stat write create delete execute rename all" -- "$cur") $(compgen -f -- "$cur"))
		fi
		;;
	*)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_sbx_options "$sbx" "$cmd")" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	esac
}
complete -F _sbx sbx
