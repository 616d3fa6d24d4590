" Eä kernel sources: *.ea -> filetype ea
autocmd BufRead,BufNewFile *.ea setfiletype ea
