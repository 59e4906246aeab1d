# fish completion for sbx(1). Installed by `cmake --install` into
# share/fish/vendor_completions.d/sbx.fish. The names come from `sbx complete`, so that they
# are always this sbx's.

function __sbx_no_command
    set -l words (commandline -opc)
    for w in $words[2..-1]
        switch $w
            case '-*'
            case '*'
                return 1
        end
    end
    return 0
end

function __sbx_using
    set -l words (commandline -opc)
    for w in $words[2..-1]
        switch $w
            case '-*'
            case '*'
                test "$w" = "$argv[1]"
                return
        end
    end
    return 1
end

complete -c sbx -f
complete -c sbx -n __sbx_no_command -a '(sbx complete commands 2>/dev/null)'
complete -c sbx -n __sbx_no_command -l help -d 'show the help'
complete -c sbx -n __sbx_no_command -l version -d 'print the version'
complete -c sbx -n '__sbx_using help' -a '(sbx complete commands 2>/dev/null)'
complete -c sbx -n '__sbx_using complete' -a 'profiles seccomp-groups commands'
complete -c sbx -n '__sbx_using profiles' -a 'list show validate'
complete -c sbx -n '__sbx_using profiles' -a '(sbx complete profiles 2>/dev/null)'

for cmd in run check resolve
    complete -c sbx -n "__sbx_using $cmd" -s p -l profile -x -a '(sbx complete profiles 2>/dev/null; __fish_complete_suffix .yaml)' -d profile
    complete -c sbx -n "__sbx_using $cmd" -l workspace -x -a '(__fish_complete_directories)' -d 'the workspace'
    complete -c sbx -n "__sbx_using $cmd" -l verbose -d 'every note'
    complete -c sbx -n "__sbx_using $cmd" -s q -l quiet -d 'no notes'
end
complete -c sbx -n '__sbx_using check' -a 'read list stat write create delete execute rename all'
set -l run '__sbx_using run'
complete -c sbx -n $run -s w -l workdir -x -a '(__fish_complete_directories)' -d 'working directory inside'
complete -c sbx -n $run -l chdir -x -a '(__fish_complete_directories)' -d 'working directory inside'
complete -c sbx -n $run -s v -l volume -r -d 'bind mount SRC[:DST][:ro|rw]'
complete -c sbx -n $run -l mount -x -d 'type=bind,source=SRC,target=DST[,readonly]'
complete -c sbx -n $run -l tmpfs -r -d 'a private tmpfs PATH[:size=N]'
complete -c sbx -n $run -l home -x -a 'tmpfs empty none (__fish_complete_directories)' -d "the worker's \$HOME"
complete -c sbx -n $run -l root -x -a '(__fish_complete_directories)' -d 'host DIR seen at /'
complete -c sbx -n $run -l device -r -d 'a host device node'
complete -c sbx -n $run -l hide -r -d 'make matching paths inaccessible'
complete -c sbx -n $run -l unhide -r -d 'give back what hide would hide'
complete -c sbx -n $run -l readonly -d 'no writes anywhere'
complete -c sbx -n $run -l read-only -d 'no writes anywhere'
complete -c sbx -n $run -l no-system-mounts -d 'no /usr, /bin, /lib*, /etc essentials'
complete -c sbx -n $run -l restrict -x -a '(__fish_complete_directories)' -d 'nested: keep only PATH'
complete -c sbx -n $run -l allow-read -r -d 'nested: keep only PATH, read-only'
complete -c sbx -n $run -l allow-write -r -d 'nested: keep only PATH'
complete -c sbx -n $run -s e -l env -x -d 'NAME[=VALUE]'
complete -c sbx -n $run -l net -x -a 'none host' -d 'the network'
complete -c sbx -n $run -l network -x -a 'none host' -d 'the network'
complete -c sbx -n $run -l backend -x -a 'auto namespaces landlock'
complete -c sbx -n $run -l best-effort -d 'run even where not all can be enforced'
complete -c sbx -n $run -l allow-nesting -d 'let the worker start sub-sandboxes'
complete -c sbx -n $run -l approve -x -a 'tty deny allow cmd: socket:' -d 'who answers approvals'
complete -c sbx -n $run -l approve-timeout -x -d 'seconds'
complete -c sbx -n $run -l audit-log -r -d 'append JSON Lines'
complete -c sbx -n $run -l label -x -d 'a label for the audit log'
complete -c sbx -n $run -l seccomp-allow -x -a '(sbx complete seccomp-groups 2>/dev/null)'
complete -c sbx -n $run -l seccomp-deny -x -a '(sbx complete seccomp-groups 2>/dev/null)'
complete -c sbx -n $run -l seccomp-errno -x -a 'EPERM EACCES ENOSYS'
complete -c sbx -n $run -l seccomp-log -d 'deny nothing, log'
complete -c sbx -n $run -l dry-run -d 'print the plan, run nothing'
complete -c sbx -n $run -l json -d 'with --dry-run: JSON'
complete -c sbx -n $run -s h -l help -d 'show the help'
