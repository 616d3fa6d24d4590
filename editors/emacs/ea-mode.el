;;; ea-mode.el --- Eä kernel sources, with eglot and lsp-mode set up for eals  -*- lexical-binding: t; -*-

;; Usage (init.el):
;;   (add-to-list 'load-path "/path/to/ea/editors/emacs")
;;   (require 'ea-mode)
;;   (add-hook 'ea-mode-hook #'eglot-ensure)   ; or #'lsp for lsp-mode
;; `ea-eals-command' is the server command (default: "eals" on PATH).

;;; Code:

(defgroup ea nil "Eä kernel language." :group 'languages)

(defcustom ea-eals-command '("eals")
  "The Eä language server command (stdio), as a list of strings."
  :type '(repeat string))

(defconst ea-mode--keywords
  '("export" "func" "kernel" "struct" "const" "let" "mut" "restrict" "return" "if" "else" "while"
    "for" "foreach" "in" "over" "step" "tail" "unroll" "splat" "true" "false" "out" "static_assert"))

(defvar ea-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?/ ". 12" table)  ; `//' starts a comment (the only comment form)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?_ "_" table)
    table))

;;;###autoload
(define-derived-mode ea-mode prog-mode "Eä"
  "Major mode for Eä kernel sources (.ea)."
  (setq-local comment-start "// ")
  (setq-local comment-end "")
  (setq-local font-lock-defaults
              `(((,(regexp-opt ea-mode--keywords 'symbols) . font-lock-keyword-face)
                 ("\\_<\\(?:bool\\|[iu]\\(?:8\\|16\\|32\\|64\\)\\|f\\(?:16\\|32\\|64\\)\\)\\(?:x[0-9]+\\)?\\_>"
                  . font-lock-type-face)
                 ("\\_<func\\s-+\\(\\(?:\\sw\\|\\s_\\)+\\)" 1 font-lock-function-name-face)))))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.ea\\'" . ea-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs `(ea-mode . ,(lambda (&rest _) ea-eals-command))))

(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(defvar lsp-language-id-configuration)

(with-eval-after-load 'lsp-mode
  (add-to-list 'lsp-language-id-configuration '(ea-mode . "ea"))
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection (lambda () ea-eals-command))
                    :activation-fn (lambda (file-name _mode)
                                     (or (eq major-mode 'ea-mode)
                                         (and file-name (string-suffix-p ".ea" file-name))))
                    :server-id 'eals)))

(provide 'ea-mode)
;;; ea-mode.el ends here
