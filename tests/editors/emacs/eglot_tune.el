;;; eglot_tune.el --- eglot (Debian's elpa-eglot) and eals's rewrite code actions  -*- lexical-binding: t; -*-
;; Run: emacs --batch -l eglot_tune.el (environment: see common.el; EA_DIR
;; holds reductions.ea, EA_TITLE is the action to pick).
;; eglot 1.9 declares no codeAction resolveSupport, so each rewrite comes with
;; its edit. Its quirks: it sends only the Flymake diagnostics inside the
;; region as the context (none here: the file is clean), keeps only actions
;; whose kind equals the asked kind exactly, and with several actions
;; `eglot-code-actions' pops up a mouse menu when `last-nonmenu-event' is a
;; list (nil in batch mode): bound to a key event, as after `M-x', it asks with
;; `completing-read', which the driver answers with EA_TITLE as a user would.

(load (expand-file-name "common.el" (file-name-directory load-file-name)) nil t)
(require 'eglot)
;; eglot waits 3 s for the connection by default and then goes on in the background, so a
;; server slow to answer `initialize' on a loaded machine failed the check below: wait for it.
(setq eglot-sync-connect 60)

(defun ea-eglot-loop-region ()
  "The line of max_f32's `while' (the region eglot users select), point on `while'."
  (goto-char (point-min))
  (search-forward "func max_f32")
  (search-forward "while")
  (goto-char (match-beginning 0))
  (cons (line-beginning-position) (line-end-position)))

(defun ea-eglot-tune-main ()
  (ea-put "eglot" (ea-package-version 'eglot))
  ;; eglot sends it in workspace/didChangeConfiguration once connected.
  (setq-default eglot-workspace-configuration
                '((:ea . (:target_cpu "haswell" :target_triple "x86_64-unknown-linux-gnu"))))
  (find-file (expand-file-name "reductions.ea" (getenv "EA_DIR")))
  (ea-put "major_mode" (symbol-name major-mode))
  (apply #'eglot (eglot--guess-contact))
  (unless (ea-check "connected" (and (eglot-current-server) eglot--managed-mode) major-mode)
    (error "eglot did not connect"))
  ;; 1. The rewrite actions of the loop's line (the first answer waits for the machine code).
  (let* ((region (ea-eglot-loop-region))
         (actions (ea-wait 60 (lambda ()
                                (condition-case nil
                                    (eglot-code-actions (car region) (cdr region) "refactor.rewrite")
                                  (error nil)))))
         (menu nil))
    (ea-put "titles" (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
    (ea-put "eager" (if (cl-every (lambda (a) (plist-get a :edit)) actions) t :json-false))
    ;; 2. Picked as a user picks it, applied by eglot.
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq menu (mapcar #'car collection))
                 (getenv "EA_TITLE"))))
      (let ((last-nonmenu-event ?\r))
        (eglot-code-actions (car region) (cdr region) "refactor.rewrite" t)))
    (ea-put "menu" (vconcat menu))
    (ea-put "text_after_rewrite" (ea-buffer-text))
    (ea-put "stderr" (ea-buffer-contents (jsonrpc-stderr-buffer (eglot-current-server))))))

(ea-run #'ea-eglot-tune-main)
;;; eglot_tune.el ends here
